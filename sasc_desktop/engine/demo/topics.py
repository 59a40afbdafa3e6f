"""The planted search topics: TREC-style title/description/narrative plus the phrase banks that
generate highly relevant messages, passing mentions (somewhat relevant) and distractors that share
vocabulary but are not relevant. ``sens`` lists topic-specific sensitive passages with their kind
(see labels.KIND_REASON); ``sens_share`` is the chance a relevant message carries one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Topic:
    id: str
    title: str
    description: str
    narrative: str
    cast: tuple[str, ...]
    subjects: tuple[str, ...]
    high: tuple[str, ...]
    passing: tuple[str, ...]
    dsubjects: tuple[str, ...]
    distractor: tuple[str, ...]
    sens: tuple[tuple[str, str], ...]
    sens_share: float
    attach: tuple[str, ...] = ()
    slots: tuple[tuple[str, tuple[str, ...]], ...] = ()
    weight: float = 1.0   # relative number of highly relevant messages
    # Vocabulary mismatch: what people write instead of the title words (codenames, synonyms,
    # abbreviations). Keys are matched case-insensitively as whole words, longest first.
    aliases: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # dleads[i]: the distractor paragraphs (indices) that fit dsubjects[i]; empty: paragraph i
    dleads: tuple[tuple[int, ...], ...] = ()

    def public(self) -> dict:
        return {"id": self.id, "title": self.title, "description": self.description, "narrative": self.narrative}


TOPICS: tuple[Topic, ...] = (
    Topic(
        id="1", title="Project Falcon launch",
        description="Planning and execution of the commercial launch of the Falcon handheld spectrometer.",
        narrative="Relevant: launch dates, launch readiness reviews, pricing and positioning of Falcon, "
                  "launch events, channel and marketing plans, slips of the launch. Somewhat relevant: "
                  "messages that mention the launch in passing. Not relevant: the peregrine falcons on the "
                  "roof, other products, Falcon firmware bugs after launch.",
        cast=("jessica.tran", "priya.raman", "john.snibert", "camille.roy", "tom.brennan", "dave.kowalski",
              "steve.park", "derek.osborne"),
        subjects=("Falcon launch readiness", "Re: Falcon launch date", "Falcon GA checklist",
                  "Launch plan v{num} for Falcon", "Falcon launch - go/no-go {day}", "Falcon pricing for launch"),
        high=(
            "We are still targeting {falcon_date} for the Falcon general availability date. Manufacturing has "
            "the first {bignum} units in the build plan and marketing is locked on the launch webinar.",
            "Launch readiness review for Falcon is {day} at {time} in {room}. Please bring your red/yellow/green "
            "status: firmware, optics calibration, packaging, docs, support training and channel.",
            "The Falcon launch deck needs the final positioning slide. I'd lead with the handheld-lab-grade "
            "message and keep the {falcon_feature} story for the analyst briefings.",
            "Tom's team wants launch pricing before the distributor summit. Current proposal is list price "
            "{falcon_price} with a {pct} introductory discount for the first quarter after launch.",
            "If the calibration fixture slips again, the Falcon launch slips with it. I'd rather move GA by two "
            "weeks than ship units we have to recall.",
            "The Falcon launch checklist is in the shared drive. {colleague} owns the support knowledge base and "
            "still has {num} articles to write before GA.",
            "Press embargo for the Falcon announcement lifts at 6am Eastern on launch day. Derek has the "
            "release and the customer quotes from {customer}.",
            "Go/no-go for Falcon: firmware 1.0 is signed off, the FCC certificate arrived, and the first pallet "
            "leaves the factory {week}. I vote go.",
        ),
        passing=(
            "Also, with the Falcon launch coming up, my calendar is going to be a mess for a while.",
            "Unrelated, but the Falcon launch date is now on the company calendar if you need it.",
            "Everyone is heads-down on the Falcon launch so expect slower answers from product.",
            "PS: can you remind me who is presenting at the Falcon launch webinar?",
        ),
        dsubjects=("Peregrine falcons on the roof", "Falcon Heights apartment", "Falcons game tickets"),
        dleads=((0, 3), (2,), (1,)),
        distractor=(
            "Facilities update: the pair of peregrine falcons is nesting on the roof ledge again. Please keep "
            "the east stairwell door closed; the wildlife folks say the chicks hatch in about {num} days.",
            "Anyone interested in two tickets for the Falcons game on {date}? Section 112, I can't make it.",
            "We finally signed the lease at Falcon Heights, so my commute gets a lot shorter next month.",
            "Someone left a bird-watching guide in {room}. The falcon photos are gorgeous though.",
        ),
        sens=(
            ("trade_secret", "Between us: Falcon's bill of materials came in at {falcon_cost} per unit, so the "
                             "launch price gives us a {pct} margin at best. Please do not forward outside the core team."),
            ("trade_secret", "Unreleased spec for the Falcon Pro variant: {falcon_feature}, a 40 nm wider band and "
                             "an onboard classifier. Keep this out of the launch materials until the board approves."),
            ("trade_secret", "Confidential: the launch plan assumes {customer} signs a {k} volume commitment that "
                             "nobody outside this thread knows about yet."),
            ("emotional", "Honestly I'm exhausted. I cried in the car after the launch review yesterday and I "
                          "don't know how much longer I can keep this pace."),
            ("peer_opinion", "Frankly {colleague} has been dead weight on the launch team; I have redone every "
                             "deliverable they handed me."),
        ),
        sens_share=0.3, attach=("notes", "pdf"),
        slots=(("falcon_date", ("May 12", "June 3", "the week of June 9", "September 15")),
               ("falcon_feature", ("the 900-1700 nm range", "the one-second scan", "the cloud sync",
                                   "the field-swappable battery")),
               ("falcon_price", ("$4,950", "$5,400", "$3,990")),
               ("falcon_cost", ("$1,312", "$1,480", "$1,275"))),
        weight=1.3,
    ),
    Topic(
        id="2", title="patent filing for the Lumen sensor",
        description="Preparing and filing patent applications for the Lumen optical sensor.",
        narrative="Relevant: invention disclosures, claims drafts, prior art, inventor declarations, filing "
                  "deadlines for Lumen patents. Somewhat relevant: passing mention of the Lumen patent work. "
                  "Not relevant: office lighting in lumens, other companies' patents in the news.",
        cast=("john.snibert", "alan.forsythe", "aisha.mahmoud", "chen.wei", "megan.oconnell", "owen.murphy",
              "dave.kowalski"),
        subjects=("Lumen invention disclosure", "Re: Lumen claims draft v{num}", "Prior art for Lumen patent",
                  "Inventor declaration - Lumen", "Lumen provisional filing deadline"),
        high=(
            "Alan needs the signed inventor declarations for the Lumen application by {date}. The provisional "
            "expires on the 30th, so the non-provisional has to go out before then.",
            "I went through the prior art list for the Lumen patent. The 2014 Hamamatsu reference is close, "
            "but none of them do the dual-aperture calibration, which is the heart of claim 1.",
            "Attached is claims draft v{num} for Lumen. I tightened claim 4 around the temperature compensation "
            "loop and moved the waveguide geometry into the dependent claims.",
            "Can we get 30 minutes {day} to walk through the invention disclosure form for Lumen? The counsel "
            "wants a clear statement of what is new compared to the L1 sensor.",
            "Please list every inventor who contributed to the Lumen aperture design. Inventorship has to be "
            "right on the filing or the patent can be challenged later.",
            "Outside counsel estimates {k} for the Lumen patent family through PCT. Europe and Japan are the "
            "expensive part.",
            "The Lumen drawings are back from the illustrator. Figure 3 still shows the old lens stack.",
        ),
        passing=(
            "I'll be slower this week, the Lumen patent filing is eating my evenings.",
            "Alan mentioned the Lumen patent is almost ready to file, which is good news.",
            "FYI John is tied up with the Lumen patent paperwork until Thursday.",
        ),
        dsubjects=("Lighting levels in the new space", "Patent news roundup", "Projector too dim?"),
        distractor=(
            "The lighting consultant measured 300 lumens at the desks by the window, which is below the spec. "
            "Walter is getting quotes for new fixtures.",
            "Interesting: a competitor was just granted a patent on a lens cleaning kit. Public record, no "
            "action needed, just thought you'd find it funny.",
            "Does anyone know how many lumens the new projector in {room} puts out? The slides look washed out.",
        ),
        sens=(
            ("trade_secret", "The unpublished trick in Lumen is the dither pattern on the second aperture; that "
                             "gets us the {pct} noise reduction. Do not describe it in any talk before the filing date."),
            ("trade_secret", "Internal only: our measured drift on Lumen prototypes is 0.{num} nm/C, twice what the "
                             "datasheet will claim. We will fix it in calibration before anyone sees the number."),
            ("contract", "Under the NDA with Lumière Optique we cannot mention their coating process in our "
                         "claims; keep their name out of the disclosure."),
            ("peer_opinion", "I don't want {colleague} listed as an inventor. He sat in two meetings and contributed "
                             "nothing but opinions."),
        ),
        sens_share=0.38, attach=("notes", "pdf"),
    ),
    Topic(
        id="3", title="Q3 budget overrun",
        description="The engineering and operations budget overrun in the third quarter and how it is handled.",
        narrative="Relevant: spending above plan in Q3, variance reports, cost cuts, approvals of overspend, "
                  "reforecasts. Somewhat relevant: passing references to the overrun or freeze. Not "
                  "relevant: routine budget templates, personal budgets, other quarters' plans.",
        cast=("richard.halloway", "gary.whitman", "nina.petrova", "john.snibert", "dave.kowalski",
              "priya.raman", "steve.park", "margaret.osei"),
        subjects=("Q3 variance", "Re: Q3 budget overrun", "Engineering spend vs plan", "Q3 reforecast",
                  "Spending freeze - Q3"),
        high=(
            "Engineering is {k} over the Q3 plan, mostly contractor hours on Falcon calibration and the "
            "second prototype run. Finance needs a reforecast by {date}.",
            "The Q3 variance report is attached. Travel is {pct} over, lab equipment {k} over, and headcount "
            "costs are on plan.",
            "Richard asked every department head to find {pct} in savings for the rest of Q3 to cover the "
            "overrun. Can you send me your list by {day}?",
            "Until the Q3 overrun is resolved, any purchase order above $5,000 needs CFO sign-off.",
            "I think the overrun is explainable: we pulled the Lumen pilot build forward by a quarter. The "
            "spend moved, it did not grow.",
            "Can we cut the second conference booth? That alone would close a third of the Q3 gap.",
        ),
        passing=(
            "Given the Q3 overrun, I'd skip the offsite dinner this time.",
            "Assuming finance approves anything at all after the Q3 overrun...",
            "I know budgets are tight after Q3, so no pressure.",
        ),
        dsubjects=("Budget template for next year", "Household budget app"),
        dleads=((0, 2), (1,)),
        distractor=(
            "Attached is the blank budget template for next year's planning cycle. No numbers yet, just the "
            "new cost-center layout.",
            "I finally set up a budget app at home. It categorises the grocery spending automatically, "
            "which is terrifying.",
            "Reminder: the planning calendar for next fiscal year starts {date}. Templates go out {week}.",
        ),
        sens=(
            ("emotional", "I'm furious. We were told the overrun was approved in July and now I'm being "
                          "treated like I stole the money."),
            ("peer_opinion", "The real reason for the overrun is that {colleague} can't manage a vendor to save "
                             "his life. Don't repeat that."),
            ("offensive", "This is a goddamn mess and finance knew about it for weeks."),
            ("reputational", "If the board hears we shipped the pilot units knowing the overrun would be "
                             "booked against Q4, it will look like we hid it."),
        ),
        sens_share=0.27, attach=("budget_csv",),
    ),
    Topic(
        id="4", title="keynote at SensorCon",
        description="John Snibert's keynote talk at the SensorCon conference.",
        narrative="Relevant: invitation, abstract, slides, rehearsal, travel for the keynote, feedback on the "
                  "talk. Somewhat relevant: mentions of the keynote in passing. Not relevant: other "
                  "conferences, SensorCon booth logistics with no talk, sensor news.",
        cast=("john.snibert", "yuki.tanaka", "camille.roy", "mia.johansson", "derek.osborne", "lena.fischer"),
        subjects=("SensorCon keynote invitation", "Re: Keynote abstract", "Keynote slides draft",
                  "SensorCon keynote rehearsal", "Travel for SensorCon keynote"),
        high=(
            "On behalf of the SensorCon program committee I'm delighted to invite you to give the opening "
            "keynote on {date}. We allow 45 minutes plus questions.",
            "Here is my abstract for the keynote: 'Twenty years of measuring light: what handheld spectroscopy "
            "taught us about building instruments people trust.'",
            "Draft keynote slides are attached. I cut the history section to five slides and added the live "
            "Falcon demo at the end.",
            "Can we do a keynote rehearsal {day} at {time}? Camille wants to check the story flows and that "
            "nothing unannounced slips into the demo.",
            "The keynote went really well. The room was full and the questions about calibration went on "
            "for twenty minutes.",
            "Mia booked your hotel near the venue for the keynote: arriving the evening before, leaving after "
            "the speakers' dinner.",
        ),
        passing=(
            "I'm rehearsing the SensorCon keynote that week so let's meet after.",
            "By the way, the keynote at SensorCon is confirmed.",
            "John will be away for his keynote, so send lab questions to Dave.",
        ),
        dsubjects=("SensorCon booth shipping", "Sensor Weekly digest"),
        distractor=(
            "The SensorCon booth crates ship on {date}. Please label the demo kits; no talks or speaking "
            "slots this year, just the booth.",
            "Another sensor conference wants a sponsor package, the price is {k}. I'd pass.",
        ),
        sens=(
            ("receipt", "Hotel confirmation for the keynote trip: booking {booking}, card on file {card}, "
                        "exp {expiry}. Please forward to expenses."),
            ("trade_secret", "Careful in the keynote: the Lumen accuracy numbers are not public until the patent "
                             "is filed, so use the old L1 plots."),
            ("romance", "Carla is coming with me to the conference; we'll take an extra day at the coast. "
                        "Please don't book a single room."),
        ),
        sens_share=0.15, attach=("pdf",),
    ),
    Topic(
        id="5", title="hiring a data scientist",
        description="Recruiting and hiring a data scientist for the analytics team.",
        narrative="Relevant: job description, candidate pipeline, interviews, feedback, offers for the data "
                  "scientist role. Somewhat relevant: passing mentions of the open role. Not relevant: "
                  "recruiter spam for other roles, data science articles.",
        cast=("raj.patel", "tasha.williams", "lucia.fernandez", "elena.vasquez", "john.snibert", "brad.nolan"),
        subjects=("Data scientist req", "Interview feedback - data scientist", "Re: Candidate for DS role",
                  "Offer for the data scientist position", "DS job description draft"),
        high=(
            "The job description for the data scientist role is ready for review. I focused on time series, "
            "spectral data and experience shipping models to devices.",
            "We have {num} applicants for the data scientist opening; Tasha screened them down to five for "
            "phone interviews.",
            "Interview loop for the data scientist candidate on {day}: Raj does modelling, Lucía does coding, "
            "John does the system design chat.",
            "We'd like to make an offer for the data scientist role at {k} base plus standard equity. Can "
            "people ops turn it around by {day}?",
            "Can everyone put written interview feedback for the data scientist candidate in the tracker by "
            "end of day?",
            "The agency sent three more data scientist profiles. Two are strong on deep learning but have "
            "never touched sensor data.",
        ),
        passing=(
            "Once the data scientist is hired this should get easier.",
            "Lucía is doing interviews for the data scientist role today.",
            "We're still hiring a data scientist, if you know anyone.",
        ),
        dsubjects=("Recruiter: exciting role", "Article: data science salaries"),
        distractor=(
            "Exciting opportunity for a senior sales director at a fast-growing startup! Let me know if you "
            "are open to a chat.",
            "Interesting article on data science salaries across the industry. Nothing actionable.",
        ),
        sens=(
            ("review", "My take on the candidate: brilliant on paper, but he talked over Lucía the whole "
                       "interview and couldn't explain his own thesis. Strong no hire."),
            ("review", "Candidate two was nervous and rambling; she mentioned she's going through a divorce, "
                       "which may explain it. I'd still pass."),
            ("pii", "Candidate's details for the background check: DOB {their_dob}, SSN {their_ssn}, current "
                    "address {their_address}."),
            ("peer_opinion", "Raj's interview questions are outdated and frankly embarrassing; the candidates "
                             "notice."),
        ),
        sens_share=0.38, attach=("notes",),
    ),
    Topic(
        id="6", title="office move to the Harbor Building",
        description="Moving the Portland office to the new space in the Harbor Building.",
        narrative="Relevant: lease, floor plans, moving dates, seating charts, packing, IT cutover for the "
                  "move. Somewhat relevant: passing mentions of the move. Not relevant: moving house, "
                  "the harbour cruise at the holiday party.",
        cast=("walter.huang", "dolores.martin", "kevin.obrien", "richard.halloway", "margaret.osei",
              "nate.sullivan"),
        subjects=("Office move timeline", "Re: Seating chart for Harbor Building", "Packing crates arrive {day}",
                  "Harbor Building move - IT cutover", "Move weekend volunteers"),
        high=(
            "The move to the Harbor Building is scheduled for the weekend of {date}. Movers arrive Friday at 4pm; "
            "please have your desk packed by then.",
            "The draft seating chart for the Harbor Building is attached. Engineering gets the north side of "
            "the 12th floor, near the lab.",
            "IT cutover for the office move: the network goes down Friday at 6pm, and we expect everything back "
            "up Sunday afternoon. Laptops come with you.",
            "Packing crates arrive {day}. Label each crate with your name and new desk number from the "
            "Harbor Building plan.",
            "The lease for the Harbor Building is signed. Rent starts {date}; we have two months of overlap "
            "with the old office.",
        ),
        passing=(
            "After the office move I'll finally have a door.",
            "Let's do it after we're settled in the Harbor Building.",
            "My files are all in boxes for the move, so I'll send it next week.",
        ),
        dsubjects=("Moving house", "Harbour cruise tickets"),
        distractor=(
            "We're moving house next month, so if I seem distracted that's why. The boxes are taking over.",
            "The harbour cruise for the summer social is booked. Boarding at 6pm, bring a jacket.",
        ),
        sens=(
            ("family", "I need a desk near the exit; I do the school pickup for Maya at 3 and the new building is "
                       "further from her school."),
            ("health", "Could I have the quiet corner? My migraines are back and the open floor makes them "
                       "worse. Please keep this between us."),
        ),
        sens_share=0.03, attach=("pdf",),
    ),
    Topic(
        id="7", title="Brightwater customer outage escalation",
        description="The escalation after sensor outages at the customer Brightwater Utilities.",
        narrative="Relevant: outage reports, root cause analysis, customer calls, service credits, executive "
                  "escalation with Brightwater. Somewhat relevant: passing mentions. Not relevant: "
                  "scheduled maintenance notices, other customers' routine tickets.",
        cast=("luis.ortega", "rachel.kim", "ahmed.karim", "sandra.whitcomb", "tom.brennan", "john.snibert",
              "bjorn.akesson"),
        subjects=("URGENT: Brightwater outage", "Re: Brightwater escalation", "Root cause - Brightwater sensors",
                  "Brightwater service credit", "Brightwater exec call {day}"),
        high=(
            "Brightwater lost data from {num} substation sensors overnight. Sandra is asking for a root cause "
            "by tomorrow and escalated to Tom.",
            "Preliminary root cause for the Brightwater outage: firmware 3.8 leaks memory when the LTE modem "
            "reconnects, and the watchdog reboots the unit every six hours.",
            "Brightwater wants a service credit for the outage. Their contract allows up to {pct} of the "
            "monthly fee.",
            "Exec call with Brightwater {day} at {time}. Tom leads; Björn covers the firmware fix; Rachel has "
            "the timeline.",
            "The hotfix is rolling out to Brightwater's fleet tonight. We'll monitor reconnects for 48 hours "
            "before we call the escalation closed.",
            "Sandra says this is the third Brightwater outage this year and their board is asking whether to "
            "renew.",
        ),
        passing=(
            "Sorry for the delay, the Brightwater escalation ate my afternoon.",
            "Once the Brightwater fire is out I'll look at this.",
            "Rachel is still on the Brightwater calls.",
        ),
        dsubjects=("Scheduled maintenance", "Ticket #{pr}: login question"),
        distractor=(
            "Scheduled maintenance: the customer portal will be offline {day} from 10pm to midnight. No action "
            "needed.",
            "Customer asked how to reset their portal password. Sent them the knowledge base link; closing the "
            "ticket.",
        ),
        sens=(
            ("offensive", "Sandra is being a complete pain in the ass about this, pardon my French."),
            ("reputational", "We knew 3.8 had the reconnect bug before we pushed it to Brightwater. If that "
                             "comes out in the RCA we're finished with them."),
            ("emotional", "I was up all night on this and I'm at the end of my rope. I snapped at my kids this "
                          "morning."),
            ("litigation", "Grace says Brightwater's lawyers asked about damages; keep all outage messages "
                           "under the litigation hold and don't speculate in writing."),
        ),
        sens_share=0.3,
    ),
    Topic(
        id="8", title="grant proposal with Stonebridge University",
        description="The joint research grant proposal with Holly Palmer's group at Stonebridge University.",
        narrative="Relevant: proposal drafts, budget justification, letters of support, submission deadlines "
                  "for the joint grant. Somewhat relevant: passing mentions. Not relevant: other "
                  "university events, unrelated seminars.",
        cast=("holly.palmer", "john.snibert", "ivan.morozov", "daniel.cho", "lucia.fernandez", "ruth.abernathy"),
        subjects=("Grant proposal draft", "Re: Budget justification for the grant", "Letter of support",
                  "Grant deadline {date}", "Project summary - sensor data markets"),
        high=(
            "Attached is the project summary for our grant proposal on pricing sensor data. I kept it to one "
            "page; the intellectual merit paragraph still needs work.",
            "The grants office needs the budget justification by {date}. We have two summer months for me, a "
            "graduate student and {k} for Arclight's data contribution.",
            "John, could you write the letter of support for the proposal? It should say Arclight will share "
            "anonymised field data for the project.",
            "Submission deadline for the grant is {date} at 5pm. Ivan wants everything a week earlier to do "
            "the compliance check.",
            "Reviewer comments from the last round said our data plan was vague. I rewrote that section.",
        ),
        passing=(
            "Also, the grant proposal is nearly done, fingers crossed.",
            "Holly is busy with the grant proposal this month.",
            "Can we talk after the grant submission?",
        ),
        dsubjects=("Economics seminar this week", "Campus parking"),
        distractor=(
            "This week's economics seminar: a talk on labour markets and minimum wage. Coffee at 3:45.",
            "Campus parking permits must be renewed by {date}.",
        ),
        sens=(
            ("student", "Daniel's grades last term were poor (two incompletes) so I can't list him as the lead "
                        "student; please keep that to yourself."),
            ("gossip", "Ruth is sure to block the overhead waiver again, she's still bitter about losing the "
                       "deanship."),
        ),
        sens_share=0.05, attach=("notes", "budget_csv"),
    ),
    Topic(
        id="9", title="patent dispute with Vireo Optics",
        description="The patent infringement dispute between Arclight and Vireo Optics.",
        narrative="Relevant: cease-and-desist letters, counsel's advice, claims charts, depositions, "
                  "settlement talks with Vireo. Somewhat relevant: passing mentions. Not relevant: "
                  "Arclight's own routine patent filings, optics news.",
        cast=("grace.lindqvist", "jonathan.kessler", "alan.forsythe", "john.snibert", "margaret.osei",
              "megan.oconnell"),
        subjects=("Vireo - privileged", "Re: Vireo claims chart", "Deposition prep", "Vireo settlement offer",
                  "PRIVILEGED: Vireo strategy"),
        high=(
            "Privileged and confidential. Vireo's counsel sent a cease-and-desist alleging the Falcon optics "
            "infringe their patent on folded light paths. Please preserve all documents on the design.",
            "Attached is Jonathan's claims chart comparing Vireo's patent to our design. His view: claim 1 "
            "reads on our old L1 prototype, not on Falcon.",
            "John, your deposition in the Vireo matter is set for {date}. Prep sessions with Kessler Brandt "
            "{day} and {day}.",
            "Vireo floated a settlement: a {k} lump sum plus cross-licensing. Counsel recommends we counter "
            "at a third of that.",
            "Litigation hold reminder: do not delete anything about Vireo, Falcon optics or the L1 prototype.",
            "Our invalidity argument is strong: the folded path was in John's 2011 conference paper.",
        ),
        passing=(
            "Legal is consumed by the Vireo matter this month.",
            "I can't talk about it, but the Vireo thing is still going.",
        ),
        dsubjects=("Optics news", "Patent granted for Kestrel"),
        dleads=((1,), (0,)),
        distractor=(
            "Good news: the patent for the Kestrel mount was granted and is now public. No action needed.",
            "Optics industry news this week: a new lens coating supplier opened in Oregon.",
        ),
        sens=(
            ("litigation", "Jonathan's advice, privileged: our exposure if Vireo wins is {k} to {k}, and "
                           "discovery will reach your personal notebooks."),
            ("litigation", "Counsel wants the deposition answers kept short. Do not volunteer anything about "
                           "the early L1 design reviews."),
            ("trade_secret", "For the claims chart we need the internal Falcon optical layout, revision "
                             "{num}, which has never left the building."),
            ("litigation", "I'm sick about this. Having to defend my own work under oath, with the Vireo "
                           "lawyers reading my old lab notebooks, makes me want to throw up."),
        ),
        sens_share=1.0, attach=("pdf",), weight=0.8,
    ),
    Topic(
        id="10", title="promotion of Dave Kowalski",
        description="Dave Kowalski's promotion to Director of Engineering.",
        narrative="Relevant: nominations, calibration discussions, feedback, the announcement of Dave's "
                  "promotion, reactions. Somewhat relevant: passing mentions. Not relevant: other "
                  "people's promotions in general, retail promotions.",
        cast=("john.snibert", "elena.vasquez", "margaret.osei", "dave.kowalski", "priya.raman", "aisha.mahmoud"),
        subjects=("Dave's promotion", "Re: Director nomination - Kowalski", "Announcement: new Director of "
                  "Engineering", "Calibration - Dave K", "Congrats Dave!"),
        high=(
            "I'm nominating Dave Kowalski for Director of Engineering. He has run the optics team through two "
            "product launches and the team grew from five to {num} people.",
            "The calibration committee meets {day} to discuss Dave's promotion. I'd like written feedback from "
            "his peers beforehand.",
            "Please join me in congratulating Dave Kowalski on his promotion to Director of Engineering, "
            "effective {date}.",
            "Congrats on the promotion, Dave! Well deserved.",
            "Dave's promotion packet is attached: impact summary, peer feedback and the leveling rubric.",
        ),
        passing=(
            "Now that Dave is a director, send budget questions his way.",
            "Ask Dave, he got promoted last month.",
        ),
        dsubjects=("Spring promotion at the company store", "Promotions calendar"),
        distractor=(
            "The company store has a spring promotion: 20% off fleeces this week.",
            "Reminder: the promotion cycle calendar for all staff is on the intranet; nominations open {date}.",
        ),
        sens=(
            ("gossip", "Between us, everyone knows Dave got it because he plays golf with Maggie every Saturday."),
            ("gossip", "Did you hear Dave's marriage is falling apart? Apparently the promotion is the only "
                       "thing he talks about at home."),
            ("review", "Frank feedback for the committee: Dave is technically solid but avoids conflict and "
                       "let two underperformers coast for a year."),
            ("emotional", "I'm hurt. I trained Dave and I was passed over again. I needed to say it to someone."),
            ("peer_opinion", "Aisha would have been the better pick; Dave can't explain a tradeoff without "
                             "a whiteboard and an hour."),
        ),
        sens_share=0.52,
    ),
    Topic(
        id="11", title="annual security audit",
        description="The annual information security audit and its findings.",
        narrative="Relevant: audit scope, evidence requests, findings, remediation plans. Somewhat relevant: "
                  "passing mentions. Not relevant: system health check alerts, routine password reminders.",
        cast=("samir.haddad", "nate.sullivan", "kevin.obrien", "grace.lindqvist", "richard.halloway"),
        subjects=("Security audit kickoff", "Re: Audit evidence request #{num}", "Security audit findings",
                  "Remediation plan - audit", "Pen test results"),
        high=(
            "The annual security audit kicks off {day}. Auditors need access logs, the asset inventory and our "
            "incident response policy by {date}.",
            "Audit finding {num}: three former contractors still had VPN accounts. We disabled them today.",
            "Remediation plan for the security audit findings is attached. Most items close within 30 days.",
            "The penetration test part of the audit runs next week; please don't panic if you see odd login "
            "attempts on the staging servers.",
            "Evidence request: screenshots of the MFA enforcement settings and the backup restore test log.",
            "The auditors flagged that we don't review admin access quarterly. Samir is writing the procedure.",
            "Audit status: {num} of 40 evidence requests closed; the rest are due {week}.",
            "Could each manager confirm the access list for their team by {day}? It's for the security audit.",
        ),
        passing=(
            "Sorry, the security audit is taking all my time.",
            "After the audit I'll clean up the shared drive permissions.",
        ),
        dsubjects=("System health check", "Password expiry reminder"),
        distractor=(
            "Automated system health check: all services green, disk usage at {pct}. No action needed.",
            "Your password expires in 7 days. Please change it via the self-service portal.",
        ),
        sens=(
            ("trade_secret", "The staging database still accepts the default admin password; until we fix it, "
                             "nobody outside this list should know."),
            ("trade_secret", "Internal: the firewall rule set and the VPN endpoint list are attached. This is "
                             "restricted to the audit team."),
            ("reputational", "If the auditors find out we had an unreported breach in March, it's on all of us."),
        ),
        sens_share=0.22, attach=("notes",),
    ),
    Topic(
        id="12", title="holiday party planning",
        description="Planning the company holiday party.",
        narrative="Relevant: venue, catering, date, budget, invitations for the holiday party. Somewhat "
                  "relevant: passing mentions. Not relevant: public holidays, other social events.",
        cast=("mia.johansson", "dolores.martin", "lena.fischer", "camille.roy", "walter.huang"),
        subjects=("Holiday party venue", "Re: Holiday party menu", "Save the date: holiday party",
                  "Holiday party RSVP", "Party budget"),
        high=(
            "Save the date: the holiday party is {date} at the Crystal Ballroom, 6 to 11pm. Partners welcome.",
            "Catering options for the holiday party: a taco bar or the Italian buffet. Vote by {day}.",
            "We have {num} RSVPs for the holiday party so far. Dolores needs dietary restrictions by Friday.",
            "The holiday party budget is {k} including the DJ and the photo booth.",
            "The white elephant gift limit for the holiday party is $25.",
            "Quick poll for the holiday party: do we want a band or the DJ again? Reply by {day}.",
            "The holiday party shuttle leaves the office at 5:45 and returns at 11. Please don't drive if you drink.",
            "Holiday party update: we're at {num} people over the room capacity, so partners may need to be capped.",
        ),
        passing=(
            "See you at the holiday party!",
            "Let's celebrate at the holiday party.",
        ),
        dsubjects=("Office closed for the holiday", "Birthday cake in the kitchen"),
        distractor=(
            "Reminder: the office is closed Monday for the public holiday.",
            "There's birthday cake in the kitchen for Walter's birthday. Come grab a slice!",
        ),
        sens=(
            ("stigmatised", "After last year, can we please not have an open bar? {colleague} was so drunk she "
                            "threw up in the coat check."),
            ("gossip", "Did you see who left the party together last year? I'm not saying anything."),
        ),
        sens_share=0.06,
    ),
    Topic(
        id="13", title="Fabricor supplier contract",
        description="Negotiating the manufacturing supply contract with Fabricor.",
        narrative="Relevant: contract terms, pricing, volumes, NDAs, redlines with Fabricor. Somewhat "
                  "relevant: passing mentions. Not relevant: other vendors' sales pitches, shipping notices.",
        cast=("frank.deluca", "paul.mendes", "steve.park", "grace.lindqvist", "ingrid.sorensen",
              "richard.halloway"),
        subjects=("Fabricor contract redlines", "Re: Fabricor pricing", "Fabricor MSA", "NDA with Fabricor",
                  "Fabricor volume commitment"),
        high=(
            "Attached are Fabricor's redlines to the master supply agreement. They pushed back on the "
            "liability cap and the 60-day payment terms.",
            "Fabricor's quote for the enclosure: {amount} per thousand at 10k units, with tooling amortised "
            "over the first year.",
            "We need the mutual NDA with Fabricor signed before we send the Falcon drawings.",
            "Paul says Fabricor can hold pricing if we commit to {bignum} units over 18 months.",
            "Contract call with Fabricor {day} at {time}. Frank leads, Grace for the legal points.",
            "Fabricor's first article inspection passed with two minor findings on the enclosure gasket.",
            "Legal comments on the Fabricor MSA: indemnity is still one-sided, and the warranty period should be 24 months.",
            "Fabricor can start the production run on {date} if we sign by end of month.",
        ),
        passing=(
            "Once the Fabricor contract is signed we can lock the schedule.",
            "Frank is still negotiating with Fabricor.",
        ),
        dsubjects=("Your shipment is on its way", "Vendor intro: packaging supplier"),
        distractor=(
            "Your shipment {tracking} is on its way. Order number {fakecard}.",
            "Hello, I'd like to introduce our packaging services. We work with many sensor manufacturers.",
        ),
        sens=(
            ("contract", "Our walk-away price with Fabricor is {amount}; don't reveal it on the call."),
            ("contract", "The NDA's confidentiality clause covers the Falcon enclosure design and our volume "
                         "forecasts for three years."),
            ("offensive", "Fabricor's lawyers are a bunch of bloodsucking idiots."),
        ),
        sens_share=0.33, attach=("pdf", "budget_csv"),
    ),
    Topic(
        id="14", title="acquisition talks with Kinetic Labs",
        description="Confidential talks about acquiring the startup Kinetic Labs.",
        narrative="Relevant: valuation, due diligence, term sheets, meetings with Kinetic Labs about an "
                  "acquisition. Somewhat relevant: passing mentions. Not relevant: kinetic energy, other "
                  "startups' news.",
        cast=("margaret.osei", "richard.halloway", "victor.almeida", "priya.raman", "john.snibert",
              "grace.lindqvist"),
        subjects=("Project Kite", "Re: Kinetic Labs diligence", "Term sheet draft", "Kinetic Labs valuation",
                  "Kinetic Labs integration thoughts"),
        high=(
            "Project Kite update: Kinetic Labs accepted our request for a diligence data room. We get access "
            "{day}.",
            "Their valuation ask is {k} million, which is roughly ten times revenue. Richard thinks we can "
            "land at six.",
            "John, could you assess Kinetic Labs' sensor IP? We need to know if their motion tracking is real "
            "or a demo.",
            "Draft term sheet for the Kinetic Labs acquisition is attached. Key points: retention for the "
            "founders and an earn-out tied to revenue.",
            "If we acquire Kinetic Labs, their team of {num} would report to Priya.",
            "Diligence call with Kinetic Labs {day}: Victor presents their roadmap, we ask about churn and IP ownership.",
            "John's read on Kinetic Labs: the motion algorithms are real but the hardware needs a respin.",
            "Legal flagged that two Kinetic Labs patents are owned by a founder personally, not the company.",
        ),
        passing=(
            "I can't say much, but Project Kite is keeping me busy.",
            "Maggie is in the Kinetic Labs meeting all day.",
        ),
        dsubjects=("Kinetic energy harvesting article", "Startup news digest"),
        distractor=(
            "Neat article on kinetic energy harvesting for wireless sensors. Could be relevant for a future "
            "product.",
            "Startup digest: three sensor startups raised seed rounds this week.",
        ),
        sens=(
            ("trade_secret", "Confidential: the board authorised up to {k} million for Kinetic Labs. Nobody "
                             "outside this thread knows the number."),
            ("trade_secret", "Kinetic Labs' revenue is far lower than they claim publicly; their data room shows "
                             "{k} last year."),
            ("peer_opinion", "Victor is a showman; his CTO does all the real work and I would only buy the "
                             "company to get her."),
            ("contract", "Under the exclusivity letter we can't talk to other acquisition targets for 60 days."),
        ),
        sens_share=0.55, attach=("pdf",), weight=0.8,
    ),
    Topic(
        id="15", title="tenure case of Samuel Okafor",
        description="The tenure review for Samuel Okafor in Stonebridge's economics department.",
        narrative="Relevant: external letters, committee discussion, votes, the tenure dossier for Samuel "
                  "Okafor. Somewhat relevant: passing mentions. Not relevant: other faculty hiring, "
                  "department events.",
        cast=("holly.palmer", "ruth.abernathy", "samuel.okafor", "daniel.cho"),
        subjects=("Okafor tenure case", "Re: External letters - Okafor", "Tenure committee {day}",
                  "Okafor dossier", "Confidential: tenure vote"),
        high=(
            "The tenure committee for Samuel Okafor meets {day}. Please read the dossier and the {num} "
            "external letters beforehand.",
            "I've drafted the committee report for Samuel's tenure case; his research record is strong, "
            "teaching evaluations are mixed.",
            "External letters for the Okafor tenure case are in; two are very positive and one lukewarm.",
            "The department vote on Samuel's tenure is scheduled for {date}.",
            "Please upload your section of the Okafor tenure report by {date}; the dean's office wants it early this year.",
            "For Samuel's case we still need one external letter; the last reviewer declined for health reasons.",
            "Teaching portfolio for Samuel's tenure file: syllabi, evaluations and two peer observations.",
        ),
        passing=(
            "Sorry, Samuel's tenure case is taking over my week.",
            "Once the tenure case is done I'll have time.",
        ),
        dsubjects=("Faculty search update", "Department picnic"),
        distractor=(
            "The faculty search for the labour economist is going well; we have three finalists.",
            "Department picnic on {date}, bring the kids!",
        ),
        sens=(
            ("review", "My honest view: Samuel's recent papers are incremental and the job-market paper did most "
                       "of the work. I'll vote yes, but it's not a strong case."),
            ("review", "One letter writer called his teaching 'disorganised and dismissive of students'. We "
                       "have to address it."),
            ("gossip", "Word is Samuel has an offer from another school and is using us for leverage."),
            ("emotional", "I'm so upset about how the committee treated him. I couldn't sleep last night."),
        ),
        sens_share=1.0, weight=0.7,
    ),
    Topic(
        id="16", title="paper on sensor data pricing",
        description="The joint research paper by Holly Palmer and John Snibert on pricing sensor data.",
        narrative="Relevant: drafts, analysis, co-author comments, journal submission and reviews of the "
                  "paper. Somewhat relevant: passing mentions. Not relevant: unrelated data pricing news, "
                  "other papers.",
        cast=("holly.palmer", "john.snibert", "daniel.cho", "lucia.fernandez"),
        subjects=("Paper draft - data pricing", "Re: Section 4 comments", "Submission to the journal",
                  "Referee reports", "Pricing model results"),
        high=(
            "New draft of our data pricing paper is attached. I rewrote the intro around the two-sided market "
            "framing.",
            "The regression in section 4 now includes sensor age as a control; the price elasticity drops to "
            "-0.{num}.",
            "We submitted the paper to the journal on {date}. Fingers crossed for a quick desk decision.",
            "Referee reports came back: one accept with minor revisions, one major revision asking for more "
            "robustness checks.",
            "Daniel reran the pricing model with the new field data; the results hold.",
            "I redid the robustness table for the pricing paper; clustering by customer doesn't change the result.",
            "Co-author comments on the pricing paper: tighten the model section and move the proofs to an appendix.",
            "Should we present the data pricing paper at the IO conference in {month}?",
        ),
        passing=(
            "Let's finish the paper before the summer.",
            "Haven't had time for our paper this week, sorry.",
        ),
        dsubjects=("Data pricing news", "Paper towels in the kitchen"),
        distractor=(
            "News: a major cloud provider cut its data egress prices by {pct}.",
            "We're out of paper towels in the kitchen again.",
        ),
        sens=(
            ("gossip", "Referee 2 is obviously Feldman, still angry we didn't cite him."),
            ("trade_secret", "The field data comes from Arclight's customer deployments; we can't name "
                             "{customer} or show raw prices."),
        ),
        sens_share=0.08, attach=("notes",),
    ),
    Topic(
        id="17", title="summer internship program",
        description="Arclight's summer internship program.",
        narrative="Relevant: intern hiring, projects, mentors, schedules and intern evaluations. Somewhat "
                  "relevant: passing mentions. Not relevant: university course schedules, general "
                  "recruiting.",
        cast=("tasha.williams", "elena.vasquez", "dave.kowalski", "sophie.laurent", "daniel.cho"),
        subjects=("Summer interns", "Re: Intern project ideas", "Intern mentor assignments",
                  "Intern housing", "Intern final presentations"),
        high=(
            "We're hiring {num} summer interns this year. Please submit intern project ideas by {date}.",
            "Intern mentor assignments are attached. Each mentor meets their intern weekly.",
            "Intern final presentations are {day} afternoon in {room}. Everyone welcome.",
            "The intern housing stipend is $1,500 a month this summer.",
            "Intern orientation is {day} at 9 in {room}; laptops and badges will be ready.",
            "Mentors: please send mid-summer intern feedback to Tasha by {date}.",
            "We had {bignum} applications for the internship; interviews are mostly on video.",
        ),
        passing=(
            "Our intern is doing a great job on the test rig.",
            "The interns start next week, so the lab will be busy.",
        ),
        dsubjects=("Course schedule", "University career fair"),
        distractor=(
            "The spring course schedule is out; registration opens {date}.",
            "The university career fair is {date}; we won't have a booth this year.",
        ),
        sens=(
            ("student", "The intern's transcript shows a D in signals and systems; his GPA is 2.{num}."),
            ("review", "Honest evaluation: our intern was late most days and the code was copied from "
                       "Stack Overflow without understanding it."),
            ("pii", "Intern payroll setup: SSN {their_ssn}, bank routing {their_routing}, account {their_account}."),
        ),
        sens_share=0.08, attach=("notes",),
    ),
    Topic(
        id="18", title="website redesign",
        description="Redesigning the Arclight website and brand.",
        narrative="Relevant: design mockups, content migration, launch of the new website, brand guidelines. "
                  "Somewhat relevant: passing mentions. Not relevant: internal intranet notices.",
        cast=("camille.roy", "ben.carter", "zoe.clarke", "priya.raman", "derek.osborne"),
        subjects=("Website redesign mockups", "Re: Homepage copy", "New brand guidelines", "Website launch",
                  "Web content migration"),
        high=(
            "The new homepage mockups for the website redesign are attached. Version B tested better with "
            "customers.",
            "We'll migrate {num} product pages to the new website by {date}.",
            "The brand guidelines for the redesign: new logo lockup, two accent colours, no more gradient.",
            "Website launch is {day}. Please check your team's pages on the staging site.",
            "The redesign goes live in three phases: homepage, product pages, then support docs.",
            "Could product managers review the new Falcon page copy on the redesigned site by {day}?",
            "Analytics after the website redesign: bounce rate down {pct}, demo requests up.",
        ),
        passing=(
            "The new website looks great by the way.",
            "After the website relaunch we should update the email signature.",
        ),
        dsubjects=("Intranet update", "Web filter"),
        distractor=(
            "The intranet has a new cafeteria menu page.",
            "The web filter blocked a site you tried to visit. Contact IT if you need access.",
        ),
        sens=(
            ("peer_opinion", "Ben's designs are lazy and derivative; I'd hire an agency."),
        ),
        sens_share=0.02, attach=("html",),
    ),
    Topic(
        id="19", title="firmware 4.2 release",
        description="Release of firmware version 4.2 for the sensor fleet.",
        narrative="Relevant: release planning, bugs, testing and rollout of firmware 4.2. Somewhat relevant: "
                  "passing mentions. Not relevant: other software updates, laptop updates.",
        cast=("bjorn.akesson", "kenji.watanabe", "olivia.grant", "sophie.laurent", "dave.kowalski",
              "ahmed.karim"),
        subjects=("Firmware 4.2 release candidate", "Re: 4.2 blocker bugs", "4.2 rollout plan",
                  "4.2 release notes", "4.2 test results"),
        high=(
            "Firmware 4.2 RC{num} is tagged. QA starts regression tomorrow.",
            "Two blocker bugs remain for 4.2: the BLE pairing timeout and the calibration table CRC mismatch.",
            "Rollout plan for 4.2: {pct} of the fleet in week one, then everyone.",
            "Draft release notes for 4.2 are attached; please check the known-issues list.",
            "Hotfix 4.2.1 addresses the BLE pairing timeout; rollout {week}.",
            "4.2 field results: reconnects down by half, battery life unchanged.",
            "Kenji: please update the 4.2 changelog with the calibration table fix.",
        ),
        passing=(
            "After 4.2 ships I'm taking a week off.",
            "Kenji is busy with the 4.2 release.",
        ),
        dsubjects=("Laptop update tonight", "App store update"),
        distractor=(
            "Your laptop will install updates tonight. Please save your work.",
            "The mobile app had an update in the app store. No firmware changes.",
        ),
        sens=(
            ("offensive", "Who the hell merged this without tests? This crap broke the build again."),
            ("emotional", "I'm done. Third weekend in a row on 4.2 and no one even says thanks."),
        ),
        sens_share=0.04, attach=("notes",),
    ),
    Topic(
        id="20", title="quarterly all-hands meeting",
        description="Preparing and holding the quarterly all-hands meeting.",
        narrative="Relevant: agenda, talking points, slides, Q&A questions and recordings of the all-hands. "
                  "Somewhat relevant: passing mentions. Not relevant: team meetings, board meetings.",
        cast=("margaret.osei", "lena.fischer", "derek.osborne", "elena.vasquez", "priya.raman"),
        subjects=("All-hands agenda", "Re: All-hands talking points", "All-hands recording",
                  "Questions for the all-hands", "All-hands slides"),
        high=(
            "Agenda for the all-hands: company update, Falcon launch, customer story, open Q&A.",
            "Talking points for the all-hands: we grew revenue {pct}, we are hiring, and benefits improve next "
            "year.",
            "The all-hands recording is on the intranet for those who missed it.",
            "Please submit questions for the all-hands anonymously via the form by {day}.",
            "Live stream link for the all-hands will be on the intranet; remote offices dial in at {time}.",
            "Could each VP send one slide for the all-hands by {day}? Keep it to wins and asks.",
            "All-hands follow-up: the answers to questions we didn't get to are now posted.",
        ),
        passing=(
            "As Maggie said at the all-hands, customers first.",
            "I'll mention it at the all-hands.",
        ),
        dsubjects=("Team meeting moved", "Weekly staff meeting"),
        distractor=(
            "Our weekly team meeting moves to {time} on {day}.",
            "Notes from the staff meeting are on the wiki.",
        ),
        sens=(
            ("trade_secret", "Don't put the layoff plan in the all-hands deck; it's not final."),
        ),
        sens_share=0.02,
    ),
    Topic(
        id="21", title="health insurance and wellness program",
        description="Changes to the employee health insurance plan and the wellness program.",
        narrative="Relevant: plan changes, open enrollment, wellness challenges, benefits questions. Somewhat "
                  "relevant: passing mentions. Not relevant: system health checks, product health "
                  "dashboards.",
        cast=("carol.jennings", "elena.vasquez", "dolores.martin", "gary.whitman"),
        subjects=("Open enrollment", "Re: New health plan", "Wellness challenge", "Benefits Q&A",
                  "Health insurance changes"),
        high=(
            "Open enrollment for next year's health insurance runs {date} to the end of the month.",
            "The new health plan has a lower deductible but a smaller provider network.",
            "The wellness challenge starts {day}: teams of five, most steps wins.",
            "Benefits Q&A session {day} at {time} in {room}.",
            "Carol will host two open-enrollment sessions; bring your questions about the new health plan.",
            "The wellness program now covers gym memberships up to $50 a month.",
            "Reminder: the health plan switch means new insurance cards; they'll arrive by mail.",
        ),
        passing=(
            "Did you sign up for the wellness challenge?",
            "Don't forget open enrollment.",
        ),
        dsubjects=("System health check", "Fleet health dashboard"),
        distractor=(
            "Automated system health check completed: all nodes healthy.",
            "The fleet health dashboard shows {pct} of sensors reporting.",
        ),
        sens=(
            ("health", "I need to know if the new plan covers my chemotherapy; I start treatment in {month}."),
            ("health", "Can the plan cover my son's therapy for his anxiety? Please keep this confidential."),
            ("pii", "My member ID is wrong on the card. DOB {dob}, SSN {ssn}."),
        ),
        sens_share=0.3,
    ),
    Topic(
        id="22", title="TechWire press interview",
        description="The interview of Arclight executives by a TechWire journalist.",
        narrative="Relevant: interview requests, prep, talking points, the article and follow-up with the "
                  "journalist. Somewhat relevant: passing mentions. Not relevant: newsletters, other press.",
        cast=("nora.castellanos", "derek.osborne", "john.snibert", "margaret.osei", "camille.roy"),
        subjects=("Interview request - TechWire", "Re: TechWire interview prep", "TechWire article",
                  "Follow-up questions from Nora", "Press prep"),
        high=(
            "Nora Castellanos from TechWire asked for an interview with John about the history of handheld "
            "spectroscopy.",
            "Interview prep for TechWire {day}: keep to the talking points, no comments on competitors.",
            "The TechWire article is out. Overall positive, though it calls us a 'quiet giant'.",
            "Nora sent follow-up questions; Derek will draft the answers.",
            "Nora would like photos of the Falcon lab for the TechWire piece; can we arrange a visit?",
            "Talking points for TechWire: the history of the company, why handheld matters, our customers.",
            "The TechWire interview is confirmed for {day} at {time}, 45 minutes, on the record.",
        ),
        passing=(
            "Did you see the TechWire piece?",
            "After the TechWire interview everyone wants a demo.",
        ),
        dsubjects=("Sensor Weekly newsletter", "Press release: Kestrel"),
        distractor=(
            "Sensor Weekly this week: new LiDAR regulations and a list of upcoming conferences.",
            "Press release (public): Arclight introduces Kestrel. Customer data remains confidential and "
            "protected.",
        ),
        sens=(
            ("reputational", "Whatever you do, don't let Nora ask about the Brightwater outages or the Vireo "
                             "case."),
            ("peer_opinion", "Nora is sharp but lazy; she'll print whatever you give her."),
            ("trade_secret", "Off the record I told her Falcon Pro is coming next spring; I shouldn't have."),
        ),
        sens_share=0.3,
    ),
    Topic(
        id="23", title="board meeting preparation",
        description="Preparing materials for the quarterly board of directors meeting.",
        narrative="Relevant: board deck, financials, strategy topics, pre-reads. Somewhat relevant: "
                  "passing mentions. Not relevant: team meetings, the school board.",
        cast=("margaret.osei", "richard.halloway", "lena.fischer", "priya.raman", "john.snibert"),
        subjects=("Board deck draft", "Re: Board pre-read", "Board meeting agenda", "Board financials",
                  "Strategy slide for the board"),
        high=(
            "The board deck draft is attached. Please send edits to your section by {day}.",
            "Board agenda: financials, Falcon launch, Project Kite, Q&A.",
            "Richard's financials for the board show revenue at {k} for the quarter.",
            "The board pre-read goes out {date}; please keep the strategy slide to one page.",
            "Board pre-read checklist: financials, KPIs, Falcon launch update, hiring plan.",
            "Richard and I will rehearse the board financials {day}. Please join if you can.",
            "The board asked for a deeper look at gross margin by product line next quarter.",
        ),
        passing=(
            "I'm buried in board prep.",
            "After the board meeting, let's talk.",
        ),
        dsubjects=("School board election", "Board games night"),
        distractor=(
            "The school board election is next Tuesday; don't forget to vote.",
            "Board games night at my place on Friday!",
        ),
        sens=(
            ("trade_secret", "The board will see our real runway: {num} months without new funding."),
            ("trade_secret", "Strategy slide: we'll exit the agriculture market next year; don't share."),
        ),
        sens_share=0.3, attach=("pdf",),
    ),
    Topic(
        id="24", title="John Snibert's retirement",
        description="John Snibert's retirement from Arclight and his farewell.",
        narrative="Relevant: retirement announcement, farewell party, handover plans, goodbye messages. "
                  "Somewhat relevant: passing mentions. Not relevant: retirement plan (401k) notices.",
        cast=("john.snibert", "margaret.osei", "lena.fischer", "dave.kowalski", "priya.raman", "mia.johansson"),
        subjects=("Farewell for John", "Re: John's retirement", "Handover plan", "Goodbye and thank you",
                  "Retirement party"),
        high=(
            "After twenty-two years I've decided to retire at the end of {month}. I'm grateful to all of you.",
            "Farewell party for John on {date} at the pub on the corner.",
            "Handover plan: Dave takes optics, Aisha takes Lumen, I stay on as advisor for a year.",
            "It's been an honour working with you, John. Enjoy your retirement!",
            "John's retirement lunch is {date}; Mia is collecting stories for the memory book.",
            "Please send your favourite John Snibert story for the farewell slideshow by {day}.",
            "The handover document for John's retirement covers calibration, patents and customer relationships.",
        ),
        passing=(
            "Before John retires, we should record his calibration knowledge.",
            "With John retiring, who will approve optics changes?",
        ),
        dsubjects=("401k plan changes", "Retirement plan webinar"),
        distractor=(
            "The 401k plan adds new fund options next quarter.",
            "Retirement plan webinar on {date} to explain the new options.",
        ),
        sens=(
            ("emotional", "I'm not ready. Leaving this place feels like losing a limb."),
            ("family", "Linda and I will finally sell the house; Emily wants us closer to the grandkids."),
            ("health", "Truth is my heart condition is the main reason I'm retiring now."),
        ),
        sens_share=0.22, weight=0.7,
    ),
)

# --- topics 25-36: the study used 35 topics per persona ------------------------------------------
MORE_TOPICS: tuple[Topic, ...] = (
    Topic(
        id="25", title="Kestrel prototype field trial",
        description="The field trial of the Kestrel crop-monitoring prototype at partner farms.",
        narrative="Relevant: trial sites, install schedules, trial data and failures, farmer feedback, trial "
                  "reports. Somewhat relevant: passing mentions. Not relevant: kestrels the bird, Kestrel "
                  "Coffee, clinical trials in the news, free software trials.",
        cast=("aisha.mahmoud", "marcus.reed", "sophie.laurent", "john.snibert", "rachel.kim", "hannah.becker",
              "raj.patel"),
        subjects=("Kestrel trial sites", "Re: Kestrel field data week {num}", "Kestrel install at Casa Verde",
                  "Field trial report draft", "Kestrel units back from the farm"),
        high=(
            "Three Kestrel prototypes are installed at Casa Verde Farms; the fourth goes in {day} once the mast "
            "bracket arrives.",
            "Week {num} of the field trial: two units lost power overnight, the solar panel angle is wrong for "
            "winter. Sophie is driving out {day}.",
            "The farmers like the moisture maps but want alerts by text message, not email. Adding that to the "
            "trial feedback list.",
            "Trial data so far: {bignum} scans, {pct} rejected for glare. The lens hood fixes most of it.",
            "Draft field trial report is in the shared folder. Section 3 still needs the yield comparison from "
            "Raj.",
            "Can we extend the trial by a month? Harvest is late this year and we need the last growth stage.",
        ),
        passing=(
            "I'll be out at the Kestrel trial site most of {day}, spotty reception.",
            "Marcus is buried in Kestrel field data this week.",
            "Once the field trial wraps we can talk about the next hire.",
        ),
        dsubjects=("Kestrel Coffee loyalty card", "Free trial ending", "Bird walk on Saturday"),
        distractor=(
            "Kestrel Coffee next door now takes the company badge for the loyalty discount. Ten stamps, free latte.",
            "Your free trial of the diagramming tool ends in {num} days. Upgrade to keep your diagrams.",
            "Bird walk on Saturday: we saw a kestrel hovering over the field behind the parking lot!",
        ),
        sens=(
            ("trade_secret", "Internal only: the Kestrel yield model is just the Lumen drift correction with a "
                             "new lookup table. Don't explain that to the farm partners."),
            ("reputational", "One prototype caught fire in the barn at site 2. Nobody was hurt, but if this gets "
                             "out before launch it will be the only thing anyone writes about Kestrel."),
            ("gossip", "The farm manager at site 3 is apparently sleeping with the co-op treasurer; everyone "
                       "there knows."),
            ("emotional", "I'm at the end of my rope with this trial. I spent the night in the truck crying "
                          "after the second unit died."),
        ),
        sens_share=0.35, attach=("notes",),
        aliases=(("Kestrel", ("K-1", "the crop unit", "the farm unit")),
                 ("field trial", ("pilot", "farm pilot", "site test")), ("trial", ("pilot", "site test")),
                 ("prototype", ("unit", "proto"))),
    ),
    Topic(
        id="26", title="expert witness report in the Meridian antitrust case",
        description="Holly Palmer's work as an economic expert witness in the Meridian antitrust case.",
        narrative="Relevant: engagement, data requests, drafts of the expert report, deposition preparation, "
                  "invoices for the engagement. Somewhat relevant: passing mentions. Not relevant: antitrust "
                  "news about other firms, the Meridian hotel, teaching antitrust economics.",
        cast=("holly.palmer", "jonathan.kessler", "daniel.cho", "samuel.okafor"),
        subjects=("Meridian expert report draft", "Re: data request - Meridian", "Deposition prep",
                  "Meridian engagement letter", "Rebuttal report comments"),
        high=(
            "Attached is the third draft of the expert report. I rewrote the market definition section; the "
            "hypothetical monopolist test now uses the 2017-2019 price data.",
            "Jonathan, we still need the transaction-level data from Meridian's distributors before I can "
            "finish the damages model.",
            "Deposition prep is scheduled for {day} at your offices. Please send the exhibits list ahead of time.",
            "Daniel, can you rerun the diversion ratios with the corrected customer file? The opposing expert "
            "will check every number.",
            "The rebuttal report from the other side misreads our elasticity estimates. I'll draft a reply by "
            "{date}.",
            "My hourly rate for the Meridian engagement is unchanged; invoices go to the firm monthly.",
        ),
        passing=(
            "I can't this week, the Meridian report is due.",
            "Sorry for the slow reply, deposition prep has eaten my days.",
            "After the expert report is filed I'll have time again.",
        ),
        dsubjects=("Antitrust reading list", "Meridian Hotel booking", "Antitrust news"),
        distractor=(
            "Here is the reading list for the antitrust module of the IO course; two new papers on platform "
            "mergers.",
            "Your reservation at the Meridian Hotel, Boston is confirmed for the seminar weekend.",
            "News: regulators open an antitrust probe into two ad-tech firms. Nothing to do with us, just "
            "interesting.",
        ),
        sens=(
            ("peer_opinion", "The opposing expert is a hack. His last three reports were thrown out and he "
                             "still charges twice my rate."),
            ("emotional", "I hate this case. I lie awake before every deposition and I snapped at Ava this "
                          "morning for nothing."),
            ("student", "Daniel's fellowship ends in May and his progress review was weak; paying him from the "
                        "engagement is the only way to keep him."),
            ("receipt", "Invoice {booking}: {num} hours at $650, plus flights {fare} charged to {paycard}."),
        ),
        sens_share=0.4, attach=("pdf",),
        aliases=(("expert witness report", ("report", "expert opinion")), ("expert witness", ("expert", "testifying expert")),
                 ("Meridian", ("the distributor case", "M-matter")), ("antitrust case", ("litigation", "matter")),
                 ("antitrust", ("competition",)), ("report", ("draft", "opinion"))),
    ),
    Topic(
        id="27", title="Daniel Cho dissertation defense",
        description="Scheduling and preparing the PhD dissertation defense of Daniel Cho.",
        narrative="Relevant: committee, defense date, drafts of chapters, feedback before the defense, the "
                  "outcome. Somewhat relevant: passing mentions. Not relevant: other students' defenses, "
                  "defense contractors.",
        cast=("holly.palmer", "daniel.cho", "ruth.abernathy", "samuel.okafor"),
        subjects=("Defense date for Daniel", "Re: chapter 3 comments", "Committee availability",
                  "Dissertation draft", "Defense room booking"),
        high=(
            "Daniel's defense is set for {date} at 2pm in the seminar room. Ruth and Samuel have confirmed; the "
            "outside member joins by video.",
            "Chapter 3 is much stronger now. The identification argument still needs one more robustness table "
            "before the defense.",
            "Please send the full dissertation to the committee at least two weeks before the defense.",
            "Congratulations, Dr. Cho! The committee passed the dissertation with minor revisions.",
            "Daniel, for the defense talk keep it to 40 minutes; the committee will interrupt anyway.",
        ),
        passing=(
            "Daniel is busy with his defense so he can't TA this term.",
            "After Daniel's defense we should celebrate.",
        ),
        dsubjects=("Defense contractor talk", "PhD defense: other student"),
        distractor=(
            "Seminar announcement: a speaker from a defense contractor on procurement auctions, {day} at noon.",
            "Reminder: Priyanka's dissertation defense is Thursday; all are welcome.",
        ),
        sens=(
            ("student", "Daniel's transcript shows he failed the second field exam before passing; the graduate "
                        "school needs that on file for the defense."),
            ("review", "Between us, chapter 2 is weak and the outside member will see it. I'd pass him, but "
                       "with reservations."),
            ("health", "Daniel told me he has been treated for depression this year; please be gentle at the "
                       "defense."),
            ("gossip", "I hear Daniel and the outside member's postdoc are an item, which is awkward."),
        ),
        sens_share=0.45, weight=0.7,
        aliases=(("Daniel Cho", ("Daniel", "our student", "Dan")), ("Cho", ("Daniel",)),
                 ("dissertation defense", ("viva", "final exam", "thesis exam")),
                 ("dissertation", ("thesis",)), ("defense", ("viva", "exam"))),
    ),
    Topic(
        id="28", title="referee report for the Economic Journal submission",
        description="Holly Palmer's referee work on a manuscript submitted to an economics journal.",
        narrative="Relevant: the request to referee, the report itself, deadline extensions, the editor's "
                  "decision. Somewhat relevant: passing mentions. Not relevant: Holly's own submissions, "
                  "journal subscription notices.",
        cast=("holly.palmer", "samuel.okafor", "ruth.abernathy", "daniel.cho"),
        subjects=("Referee request", "Re: report extension", "Referee report", "Decision letter",
                  "Manuscript EJ-{num}"),
        high=(
            "Thank you for agreeing to referee manuscript EJ-{pr}. The report is due in six weeks.",
            "Could I have two more weeks for the referee report? Teaching has been heavy this term.",
            "The paper's main result depends on a sample restriction the authors never justify; I ask for the "
            "full-sample estimates.",
            "The editor has decided on a major revision, in line with your report. Thank you for a careful review.",
            "Daniel, could you check whether the replication files for the refereed paper actually run?",
        ),
        passing=(
            "I still owe a referee report, so this week is full.",
            "Once the refereeing is done I'll read your draft.",
        ),
        dsubjects=("Journal subscription renewal", "Your submission status"),
        distractor=(
            "Your subscription to the journal renews on {date}; the library covers it this year.",
            "Status of your own submission: under review, with the referees since {month}.",
        ),
        sens=(
            ("review", "Frankly the paper is sloppy and I suspect the authors are Okafor's former coauthors; "
                       "I'd reject."),
            ("review", "The identification is hopeless. If this is who I think it is, he keeps recycling the "
                       "same failed idea."),
            ("peer_opinion", "The editor is a lightweight who sends everything out to friends."),
        ),
        sens_share=0.45, weight=0.7,
        aliases=(("referee report", ("review", "comments", "report")), ("referee", ("review",)),
                 ("Economic Journal", ("the journal", "EJ")), ("submission", ("manuscript", "paper"))),
    ),
    Topic(
        id="29", title="Holly Palmer's sabbatical in Lisbon",
        description="Planning and living Holly Palmer's sabbatical year at a university in Lisbon.",
        narrative="Relevant: sabbatical approval, visiting position, housing, schooling, travel for the "
                  "sabbatical. Somewhat relevant: passing mentions. Not relevant: Lisbon conference "
                  "announcements, other people's leave.",
        cast=("holly.palmer", "ruth.abernathy", "ivan.morozov", "samuel.okafor", "peter.palmer"),
        subjects=("Sabbatical approval", "Re: Lisbon apartment", "Visiting position letter",
                  "Flights to Lisbon", "Sabbatical plans"),
        high=(
            "The dean approved my sabbatical for the next academic year; I'll be visiting at Nova in Lisbon.",
            "We found an apartment in Campo de Ourique for the sabbatical year, ten minutes from the school.",
            "Ruth, who covers my advising while I'm in Lisbon? Samuel offered for the second-years.",
            "The visiting position letter from Lisbon came through, so the visa appointment is on {date}.",
            "Flights to Lisbon are booked for August; we ship the boxes {week}.",
        ),
        passing=(
            "Before I leave for Lisbon let's finish the draft.",
            "I'll be on sabbatical next year, so plan around me.",
        ),
        dsubjects=("Lisbon workshop call", "Sabbatical policy update"),
        distractor=(
            "Call for papers: a workshop in Lisbon on market design, deadline {date}.",
            "The faculty handbook section on sabbatical eligibility was updated; no change for current plans.",
        ),
        sens=(
            ("family", "Honestly the sabbatical is a way to get Ava away from the crowd she's been running with."),
            ("receipt", "Lisbon apartment deposit of {amount} paid with {paycard}, booking ref {booking}."),
            ("unflattering_family", "Peter is being a baby about the move; he thinks his career ends if he "
                                    "works remotely for a year."),
            ("health", "The sabbatical also gives me time for the surgery I've been putting off."),
        ),
        sens_share=0.5, weight=0.7,
        aliases=(("Holly Palmer", ("Holly", "HP")), ("sabbatical year", ("research year", "year away")),
                 ("sabbatical", ("leave", "research leave")), ("in Lisbon", ("in Portugal", "abroad")),
                 ("Lisbon", ("Portugal",))),
    ),
    Topic(
        id="30", title="data licensing deal with Northfield Water",
        description="Negotiating a licence for Northfield Water to use Arclight sensor data.",
        narrative="Relevant: term sheet, pricing, data rights, negotiation meetings, signature. Somewhat "
                  "relevant: passing mentions. Not relevant: Northfield Water outage notices, other customers.",
        cast=("tom.brennan", "luis.ortega", "grace.lindqvist", "priya.raman", "raj.patel", "john.snibert"),
        subjects=("Northfield term sheet", "Re: data rights", "Licence pricing", "Northfield negotiation",
                  "Signed licence"),
        high=(
            "Northfield wants a three-year data licence with exclusivity in their service area. We can live "
            "with exclusivity for two.",
            "Term sheet for the Northfield data deal is attached: annual fee {k}, per-sensor uplift after 500 "
            "units.",
            "Grace flagged the data rights clause: Northfield wants derived models too. That's a no.",
            "The licence is signed. Raj, please set up their API keys and the quarterly data export.",
            "Negotiation call with Northfield moved to {day} at {time}.",
        ),
        passing=(
            "With the Northfield deal nearly done, sales is in a good mood.",
            "Tom is tied up in the Northfield negotiation.",
        ),
        dsubjects=("Northfield Water service notice", "Data licence for a journal"),
        distractor=(
            "Northfield Water notice: scheduled maintenance on the main line; water pressure may drop {day}.",
            "The library renewed our licence for the market data terminal; nothing to do.",
        ),
        sens=(
            ("contract", "Confidential: our walk-away price for the Northfield licence is {k}; don't let Tom "
                         "go below it."),
            ("trade_secret", "Their engineers must not see the raw calibration tables; we only license the "
                             "cleaned data."),
            ("peer_opinion", "Luis oversold the data quality to Northfield again; he promises whatever closes "
                             "the deal."),
        ),
        sens_share=0.35,
        aliases=(("data licensing deal", ("agreement", "NFW contract")), ("licensing", ("licence", "contract")),
                 ("deal", ("agreement", "contract")), ("Northfield Water", ("NFW", "the water utility")),
                 ("Northfield", ("NFW",))),
    ),
    Topic(
        id="31", title="calibration lab ISO certification",
        description="Getting the calibration lab certified to ISO/IEC 17025.",
        narrative="Relevant: audit preparation, procedures, the assessor's findings, the certificate. "
                  "Somewhat relevant: passing mentions. Not relevant: ISO image files, routine calibration "
                  "of a single unit.",
        cast=("olivia.grant", "sophie.laurent", "chen.wei", "steve.park", "dave.kowalski"),
        subjects=("17025 audit prep", "Re: calibration procedures", "Assessor findings", "ISO certificate",
                  "Lab accreditation"),
        high=(
            "The assessor visits the calibration lab on {date}. Every procedure needs a revision history.",
            "Two minor findings from the ISO audit: uncertainty budgets for the thermal chamber and training "
            "records.",
            "We passed! The lab certificate is valid for three years.",
            "Please finish the measurement uncertainty worksheets for the accreditation by {day}.",
        ),
        passing=(
            "Olivia is stuck in audit prep all week.",
            "After the lab certification we can take new calibration customers.",
        ),
        dsubjects=("ISO file download", "Calibration of unit {num}"),
        distractor=(
            "The installer ISO for the new OS is on the shared drive if you need to reimage.",
            "Unit {num} is calibrated and back on the shelf.",
        ),
        sens=(
            ("offensive", "The assessor is a petty little tyrant and I'd like to tell him where to shove his "
                          "checklist."),
        ),
        sens_share=0.04,
        aliases=(("ISO certification", ("17025", "accreditation")), ("certification", ("accreditation",)),
                 ("ISO", ("17025",)), ("calibration lab", ("metrology room", "cal lab")),
                 ("calibration", ("cal", "metrology"))),
    ),
    Topic(
        id="32", title="battery pack recall",
        description="The recall of faulty battery packs shipped with Falcon units.",
        narrative="Relevant: root cause, affected serial numbers, customer notices, regulator contact, cost "
                  "of the recall. Somewhat relevant: passing mentions. Not relevant: laptop battery "
                  "replacement, product recalls of other companies.",
        cast=("steve.park", "olivia.grant", "tom.brennan", "grace.lindqvist", "margaret.osei", "rachel.kim",
              "john.snibert"),
        subjects=("Battery recall scope", "Re: serials affected", "Customer notice draft", "Recall cost",
                  "Battery root cause"),
        high=(
            "Root cause for the battery packs: a cell supplier lot with a separator defect. {num} customers "
            "have affected units.",
            "Serial numbers FN-2200 to FN-{pr} need the replacement pack. Rachel is drafting the customer notice.",
            "The recall will cost about {k} including shipping and the support hours.",
            "Customer notice for the battery recall goes out {day}; support gets the script tomorrow.",
            "We have to notify the regulator within ten days of deciding on the recall.",
        ),
        passing=(
            "Everyone in ops is on the recall this week.",
            "Given the recall, support queues are long.",
        ),
        dsubjects=("Laptop battery replacement", "Recall news"),
        distractor=(
            "IT is replacing swollen laptop batteries; bring your laptop to the helpdesk on {day}.",
            "A car maker announced a huge recall of airbags today. Glad it's not us.",
        ),
        sens=(
            ("reputational", "We knew about the separator issue in March and shipped anyway. If a reporter "
                             "finds the March email we're finished."),
            ("litigation", "Counsel expects at least one lawsuit from the recall; preserve every email about "
                           "the battery lot."),
            ("offensive", "The cell supplier sent us garbage and lied about it. Bastards."),
            ("trade_secret", "The real failure rate is {pct}, not the number in the customer notice."),
        ),
        sens_share=0.5,
        aliases=(("battery pack", ("power module", "cell pack")), ("battery", ("cell", "power module")),
                 ("recall", ("field replacement", "swap program", "campaign"))),
    ),
    Topic(
        id="33", title="trip to Tokyo for the customer visit",
        description="Travel to Tokyo to visit a distributor and customers.",
        narrative="Relevant: itinerary, meetings in Tokyo, flights, hotel, visit reports. Somewhat relevant: "
                  "passing mentions. Not relevant: Tokyo restaurant recommendations unrelated to the trip, "
                  "other travel.",
        cast=("tom.brennan", "john.snibert", "luis.ortega", "lena.fischer", "kenji.watanabe"),
        subjects=("Tokyo itinerary", "Re: flights to Tokyo", "Customer visit agenda", "Visit report - Japan",
                  "Hotel in Tokyo"),
        high=(
            "Itinerary for Tokyo: land {day}, distributor meeting Tuesday, two customer visits Wednesday, back "
            "Friday.",
            "Kenji will translate at the customer meetings; he wants the slide deck a week in advance.",
            "Visit report: the distributor wants Falcon demo units and a Japanese manual before they commit.",
            "The hotel in Shinagawa is booked for the team; it's two stops from the distributor's office.",
        ),
        passing=(
            "I'll be in Tokyo next week, so expect delays.",
            "Jet-lagged after the trip, sorry for typos.",
        ),
        dsubjects=("Tokyo restaurant list", "Travel policy update"),
        distractor=(
            "If anyone goes to Tokyo on holiday, the ramen place near Ebisu station is worth the queue.",
            "The travel policy now requires pre-approval for any trip above $2,000.",
        ),
        sens=(
            ("receipt", "Booking {booking}: flights {fare} on {paycard}, hotel four nights."),
            ("romance", "Carla is joining me in Tokyo for the weekend after the visit; please keep that off "
                        "the shared calendar."),
            ("stigmatised", "The distributor's dinner turned into a karaoke bender; I don't remember getting "
                            "back to the hotel."),
        ),
        sens_share=0.4, weight=0.8,
        aliases=(("Tokyo", ("Japan", "Shinagawa")), ("customer visit", ("distributor meetings", "Japan visit")),
                 ("trip", ("travel", "journey")), ("customer", ("client", "distributor"))),
    ),
    Topic(
        id="34", title="reorganisation of the optics team",
        description="Restructuring the optics engineering team into two groups.",
        narrative="Relevant: the reorg plan, new reporting lines, announcements, people's reactions. "
                  "Somewhat relevant: passing mentions. Not relevant: reorganising the lab storage, optics "
                  "conference news.",
        cast=("dave.kowalski", "john.snibert", "elena.vasquez", "aisha.mahmoud", "chen.wei", "margaret.osei"),
        subjects=("Optics reorg plan", "Re: new reporting lines", "Org announcement draft", "Team structure",
                  "Reorg FAQ"),
        high=(
            "The optics team splits into design and manufacturing optics on {date}; Aisha leads design, Chen "
            "leads manufacturing.",
            "Draft announcement of the optics reorganisation is attached; Elena wants it out before the all-hands.",
            "New reporting lines: Aisha and Chen report to Dave; John becomes an individual contributor advisor.",
            "FAQ for the reorg: no layoffs, no pay changes, desks stay where they are.",
        ),
        passing=(
            "With the reorg, I'm not sure who approves this now.",
            "Let's wait for the dust to settle after the optics reorg.",
        ),
        dsubjects=("Lab storage cleanup", "Optics conference news"),
        distractor=(
            "We're reorganising the lab storage room on {day}; label anything you want to keep.",
            "The optics society announced its conference programme; nothing from our team this year.",
        ),
        sens=(
            ("peer_opinion", "Chen is not ready to lead anything. He's technically brilliant but people avoid "
                             "him."),
            ("emotional", "I found out about the reorg from a calendar invite. I'm angry and humiliated."),
            ("gossip", "Word is Aisha got the role because she's close to Margaret outside work."),
            ("reputational", "If the reorg leaks as a demotion for John, the press will say we pushed out our "
                             "inventor."),
        ),
        sens_share=0.45,
        aliases=(("reorganisation", ("reorg", "restructure", "shake-up")), ("optics team", ("lens group", "Dave's group")),
                 ("optics", ("lens",)), ("team", ("group",))),
    ),
    Topic(
        id="35", title="SpectraCloud subscription pricing",
        description="Setting subscription prices and tiers for the SpectraCloud data service.",
        narrative="Relevant: tier definitions, price points, discount rules, competitor benchmarks for "
                  "SpectraCloud. Somewhat relevant: passing mentions. Not relevant: SpectraCloud outage "
                  "notices, our own software subscriptions.",
        cast=("priya.raman", "owen.murphy", "tom.brennan", "nina.petrova", "holly.palmer", "camille.roy"),
        subjects=("SpectraCloud tiers", "Re: subscription price points", "Pricing model review",
                  "Discount rules", "Competitor pricing"),
        high=(
            "Proposed tiers for SpectraCloud: Basic at $49 per device per month, Pro at $129 with alerts and "
            "API access.",
            "Holly's pricing model suggests usage-based pricing beats flat subscriptions for small farms.",
            "Discount rules: 10% for annual prepay, 20% above 500 devices, nothing stacked.",
            "Competitor benchmark: two rivals charge per scan, which customers hate. Our subscription is simpler.",
        ),
        passing=(
            "Pricing work for SpectraCloud is taking all of Priya's time.",
            "Once subscription pricing is settled we can build the billing page.",
        ),
        dsubjects=("SpectraCloud maintenance", "Software subscription renewal"),
        distractor=(
            "SpectraCloud maintenance window {day} 2-4am; the dashboard will be read-only.",
            "Our subscription to the design software renews next month; tell IT if you no longer need a seat.",
        ),
        sens=(
            ("trade_secret", "Our actual cost per device is $11; keep that out of any deck customers see."),
            ("contract", "Holly's consulting agreement caps her fee at {k} and forbids her from advising "
                         "competitors for a year."),
            ("receipt", "Holly's consulting invoice {booking} paid to account {their_account}."),
            ("gossip", "Owen and Nina are not speaking since the pricing fight; it's like a divorce."),
        ),
        sens_share=0.35,
        aliases=(("SpectraCloud", ("the cloud service", "SC data service", "the platform")),
                 ("subscription pricing", ("monetisation", "price plan")), ("subscription", ("plan", "tier")),
                 ("pricing", ("price plan", "monetisation"))),
    ),
    Topic(
        id="36", title="volunteer day at the food bank",
        description="The company volunteer day at the regional food bank.",
        narrative="Relevant: sign-ups, shifts, transport, photos and thanks for the volunteer day. Somewhat "
                  "relevant: passing mentions. Not relevant: food in the kitchen, other charity appeals.",
        cast=("mia.johansson", "dolores.martin", "walter.huang", "camille.roy", "lena.fischer"),
        subjects=("Volunteer day sign-up", "Re: food bank shifts", "Carpool for volunteer day",
                  "Thank you, volunteers!", "Food bank photos"),
        high=(
            "Sign-ups for the food bank volunteer day are open: morning shift sorts produce, afternoon packs boxes.",
            "We have {num} volunteers for the food bank; carpools leave the lobby at 8:30.",
            "Thank you, volunteers! We packed {bignum} meals at the food bank.",
            "Please wear closed-toe shoes on volunteer day; the warehouse has forklifts.",
        ),
        passing=(
            "I'm out Friday for the volunteer day.",
            "Are you going to the food bank thing?",
        ),
        dsubjects=("Food in the kitchen", "Charity appeal"),
        distractor=(
            "Leftover sandwiches from the board lunch are in the kitchen; help yourselves.",
            "A colleague is running a marathon for charity; the donation page is on the intranet.",
        ),
        sens=(
            ("membership", "We're going with my church group anyway, so I'll bring the parish van."),
        ),
        sens_share=0.05,
        aliases=(("volunteer day", ("service day", "community day")), ("volunteer", ("helper",)),
                 ("food bank", ("pantry", "the warehouse"))),
    ),
)

# Distractors that repeat a topic's title words in an unrelated context (judged not relevant):
# saved-search and archive notices, newsletters about other companies, misfiled replies, course
# listings. Real collections are full of these, and they are short, so BM25 likes them.
ECHO_DISTRACTORS: tuple[tuple[str, str], ...] = (
    ("Saved search: {num} new results",
     "Your saved intranet search \"{title}\" has {num} new results this week. Most are duplicates of pages "
     "you have already seen. Manage saved searches under Settings."),
    ("Archive notice: {title}",
     "The shared folder \"{title} (old template)\" has not been modified in 180 days and will move to cold "
     "storage on {date}. It only holds an empty template; no action needed unless you want it kept."),
    ("Sensor Weekly: readers ask",
     "Reader question of the week, from a company we don't know: how do you run something like \"{title}\" "
     "without a dedicated team? {num} readers answered; the best answers are on our site."),
    ("Re: {title}",
     "I think this went to the wrong thread: the subject line says {title}, but my note was about {food} for "
     "Friday lunch. Please ignore."),
    ("Wiki cleanup",
     "Someone created an empty page called \"{title}\" in the wiki template gallery. I removed it because it "
     "was a test page with no content. Let me know if it was yours."),
    ("Learning portal: new course",
     "New external course in the learning portal: \"Case studies: {title} and other lessons\", by a "
     "consultancy we don't work with. Optional, {num} seats, self-paced."),
    ("Quiz night answers",
     "Answers from Thursday's quiz night: round 3 was office jargon, and the made-up phrase nobody guessed "
     "was \"{title}\". Team Photon won again."),
)


_ALIASES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "1": (("Falcon", ("FX-1", "Hawkeye", "HH-900")), ("launch", ("GA", "rollout", "release"))),
    "2": (("patent filing", ("IP application", "submission")), ("patent", ("IP", "application")),
          ("filing", ("submission",)), ("Lumen", ("L2", "the dual-aperture design", "LX"))),
    "3": (("Q3 budget", ("summer spend", "third-quarter plan")), ("Q3", ("third-quarter", "summer")),
          ("budget", ("plan", "forecast")), ("overrun", ("overspend", "gap", "variance"))),
    "4": (("keynote", ("opening talk", "plenary", "main-stage talk")), ("SensorCon", ("the Yokohama conference", "SC"))),
    "5": (("data scientist", ("ML engineer", "analytics hire", "modeller")), ("hiring", ("recruiting", "filling")),
          ("hire", ("bring on",))),
    "6": (("office move", ("relocation",)), ("move", ("relocation", "transition")),
          ("Harbor Building", ("the new space", "Pier 9", "the waterfront building"))),
    "7": (("Brightwater", ("BWU", "the utility")), ("outage", ("downtime", "incident", "the P1")),
          ("escalation", ("complaint", "fire drill")), ("customer", ("client", "account"))),
    "8": (("grant proposal", ("NSF submission", "funding application")), ("grant", ("NSF", "funding")),
          ("proposal", ("application", "submission")), ("Stonebridge University", ("SU", "the university")),
          ("Stonebridge", ("SU",))),
    "9": (("patent dispute", ("IP matter", "the case")), ("patent", ("IP",)), ("dispute", ("matter", "case", "claim")),
          ("Vireo Optics", ("the plaintiff", "the other side")), ("Vireo", ("the plaintiff",))),
    "10": (("promotion", ("step up", "new role", "title change")), ("Dave Kowalski", ("DK", "our optics manager")),
           ("Kowalski", ("DK",)), ("Dave", ("DK",))),
    "11": (("security audit", ("SOC 2 assessment", "pen test")), ("annual", ("yearly",)),
           ("security", ("infosec",)), ("audit", ("assessment", "review"))),
    "12": (("holiday party", ("year-end do", "December celebration")), ("party", ("celebration", "event")),
           ("holiday", ("year-end",)), ("planning", ("prep",))),
    "13": (("Fabricor", ("FBR", "our contract manufacturer", "the CM")), ("supplier", ("vendor",)),
           ("contract", ("agreement", "MSA"))),
    "14": (("acquisition", ("Project Osprey", "deal", "combination")), ("talks", ("discussions",)),
           ("Kinetic Labs", ("Osprey", "the target", "KL")), ("Kinetic", ("KL",))),
    "15": (("tenure case", ("promotion file", "the case")), ("tenure", ("promotion to associate",)),
           ("Samuel Okafor", ("Sam", "the candidate")), ("Samuel", ("Sam",)), ("Okafor", ("Sam",))),
    "16": (("sensor data pricing", ("pricing of device telemetry", "data valuation")), ("paper", ("draft", "manuscript")),
           ("pricing", ("valuation", "price model")), ("sensor data", ("device telemetry",))),
    "17": (("summer internship", ("student placement",)), ("internship", ("placement", "co-op")),
           ("program", ("cohort", "scheme")), ("summer", ("seasonal",))),
    "18": (("website", ("site", "web pages", "homepage")), ("redesign", ("refresh", "revamp"))),
    "19": (("firmware 4.2", ("the next FW drop", "build 4.2.x")), ("firmware", ("FW", "the build")),
           ("release", ("cut", "drop", "rollout"))),
    "20": (("all-hands meeting", ("town hall", "company meeting")), ("all-hands", ("town hall",)),
           ("quarterly", ("regular",)), ("meeting", ("session",))),
    "21": (("health insurance", ("medical plan", "benefits")), ("insurance", ("coverage", "plan")),
           ("wellness", ("wellbeing", "fitness")), ("program", ("initiative",))),
    "22": (("TechWire", ("the reporter's outlet", "Nora's magazine")), ("press", ("media",)),
           ("interview", ("conversation", "Q&A", "profile piece"))),
    "23": (("board meeting", ("directors' session", "BoD")), ("board", ("directors",)), ("meeting", ("session",)),
           ("preparation", ("prep",))),
    "24": (("John Snibert", ("JS", "our chief technologist")), ("Snibert", ("JS",)),
           ("retirement", ("farewell", "send-off", "stepping down")), ("retire", ("step down", "leave"))),
}

TOPICS = tuple(replace(t, aliases=_ALIASES.get(t.id, t.aliases)) for t in TOPICS) + MORE_TOPICS

BY_ID: dict[str, Topic] = {t.id: t for t in TOPICS}
