"""Phrase banks for everything that is not a planted topic: everyday work mail, personal mail,
sensitive passages of each kind (whole messages and one-sentence asides) and decoys that share
vocabulary with sensitive content without being sensitive.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """A bank of subjects and paragraphs. Without ``leads`` every paragraph fits every subject.
    With ``leads`` (see :func:`paired`), ``leads[i]`` are the indices of the paragraphs written
    for subject ``i``: a message with that subject starts with one of them, and its other
    paragraphs come from them and the ``neutral`` ones (which fit any subject)."""
    subjects: tuple[str, ...]
    paras: tuple[str, ...]
    n: tuple[int, int] = (1, 3)   # paragraphs per message (min, max)
    leads: tuple[tuple[int, ...], ...] = ()
    neutral: tuple[int, ...] = ()

    def lead_paras(self, i: int) -> tuple[str, ...]:
        """The paragraphs a message with subject ``i`` may start with."""
        return tuple(self.paras[j] for j in self.leads[i]) if self.leads else self.paras

    def more_paras(self, i: int) -> tuple[str, ...]:
        """The paragraphs a message with subject ``i`` may have besides its first."""
        if not self.leads:
            return self.paras
        return tuple(self.paras[j] for j in sorted(set(self.leads[i]) | set(self.neutral)))


def paired(pairs, neutral=(), n=(1, 3)) -> Kind:
    """A :class:`Kind` whose subjects each have their own paragraphs: ``pairs`` is
    ``((subject, (paragraph, ...)), ...)``; a paragraph may belong to several subjects.
    ``neutral`` paragraphs fit every subject (as a message's later paragraphs)."""
    paras: list[str] = []

    def index(text: str) -> int:
        if text not in paras:
            paras.append(text)
        return paras.index(text)
    leads = tuple(tuple(index(t) for t in texts) for _, texts in pairs)
    neutral_i = tuple(index(t) for t in neutral)
    return Kind(tuple(s for s, _ in pairs), tuple(paras), n, leads, neutral_i)


OPENERS = (
    "Quick update.", "Following up on our conversation earlier.", "Circling back on this.",
    "Sorry for the slow reply, it's been a week.", "Just a heads-up.", "Per our discussion,",
    "Hope you had a good weekend.", "As promised, here it is.", "A couple of things.", "",
    "", "", "Thanks for the quick turnaround.", "Apologies for the long email.",
)
CLOSERS = (
    "Let me know if you have questions.", "Happy to discuss.", "Thoughts?", "Let me know what you think.",
    "Thanks in advance.", "Shout if anything looks off.", "More soon.", "", "", "",
    "Can we talk about it at our 1:1?", "I'll follow up {week}.",
)

# ------------------------------------------------------------------------------------------------
# Everyday work mail (not sensitive)
WORK: dict[str, Kind] = {
    "scheduling": paired(
        (("Meeting {day}?", ("Does {day} at {time} work for a 30 minute sync in {room}?",
                             "I'm out {day} afternoon, but anything before noon works.")),
         ("Reschedule our 1:1", ("Can we move our 1:1 to {day} at {time}? Something came up on my side.",)),
         ("Can we move the sync to {time}?", ("I'm double-booked at our usual slot. Can we move the sync to {time} "
                                              "on {day}?",)),
         ("Availability {week}", ("Here is my availability {week}: mornings are open, afternoons are mostly "
                                  "blocked.",
                                  "I'm out {day} afternoon, but anything before noon works.")),
         ("Calendar: design review", ("I booked {room} for the design review {day}. {colleague} will dial in.",
                                      "Calendar invite is out. Agenda: status, open risks, next steps.")),
         ("Quick sync?", ("Does {day} at {time} work for a 30 minute sync in {room}?",
                          "Do you have ten minutes {week} for a quick sync? Nothing urgent.")),
         ("Push the review?", ("Let's push the review to {week}; the numbers aren't ready.",))),
        neutral=("Let me know if another time is better.",)),
    "status": paired(
        (("Weekly status", ("Weekly status: test coverage is up to {pct}, two bugs closed, one new risk on the "
                            "supplier side.",
                            "Numbers from the field trial: {bignum} readings, {pct} flagged as outliers, mostly "
                            "from two units.",
                            "The spectrometer prototype passed the drop test from 1.2 m on all six faces.")),
         ("Status update - week {num}", ("Weekly status: test coverage is up to {pct}, two bugs closed, one new "
                                         "risk on the supplier side.",
                                         "Numbers from the field trial: {bignum} readings, {pct} flagged as "
                                         "outliers, mostly from two units.")),
         ("Update on the calibration rig", ("The calibration rig is back online after the power supply swap. We "
                                            "lost about a day.",)),
         ("Progress report", ("The spectrometer prototype passed the drop test from 1.2 m on all six faces.",
                              "Numbers from the field trial: {bignum} readings, {pct} flagged as outliers, mostly "
                              "from two units.")),
         ("Where we are on {repo}", ("We merged the refactor of {repo}; build time dropped from 14 to 9 minutes.",))),
        neutral=("Risks: the optics vendor is late with the samples, and {colleague} is out next week.",
                 "Next steps: finish the thermal tests, update {doc}, and demo to product {week}.")),
    "code_review": paired(
        (("Review request: {repo} PR #{pr}", ("Could you review PR #{pr} in {repo}? It changes the dark-frame "
                                              "subtraction to use a rolling median.",)),
         ("Re: PR #{pr} comments", ("Left a few comments on PR #{pr}. Mostly naming; the logic looks right.",)),
         ("Please review: calibration fix", ("Could you review the calibration fix in PR #{pr}? It changes the "
                                             "dark-frame subtraction to use a rolling median.",)),
         ("Merge conflict in {repo}", ("I rebased on main and resolved the conflict in the config loader of "
                                       "{repo}.",)),
         ("PR #{pr} approved", ("Approved PR #{pr}. Please squash before merging.",))),
        neutral=("The unit tests pass but the hardware-in-the-loop job times out. Can you take a look?",)),
    "design_review": paired(
        (("Design review notes", ("Notes from today's design review: we agreed on option B for the housing, "
                                  "pending the thermal simulation.",
                                  "Option A is simpler to manufacture; option B is 8 grams lighter. I lean "
                                  "towards A.")),
         ("Re: {doc} comments", ("My main concern with {doc} is the single point of failure in the data path.",)),
         ("Architecture proposal", ("The architecture proposal splits ingestion from processing so we can scale "
                                    "them separately.",
                                    "My main concern with {doc} is the single point of failure in the data "
                                    "path.")),
         ("Thermal design options", ("Thermal design options for the housing: option A is simpler to "
                                     "manufacture, option B runs 6 degrees cooler. I lean towards B.",))),
        neutral=("Could we consider a cheaper photodiode array? The spec is overkill for the agriculture market.",)),
    # notices to all staff: one paragraph about the subject, and at most the sign-off line
    "it_notice": paired(
        (("Scheduled maintenance: VPN", ("The VPN will be down for maintenance Saturday from 8 to 10 am.",)),
         ("Phishing test results", ("Last week's phishing test: {pct} of staff clicked the link. Please do the "
                                    "refresher training.",)),
         ("New laptop rollout", ("New laptops arrive {week}. IT will schedule swap appointments with each "
                                 "team.",)),
         ("Printer on 3 is fixed", ("The printer on the third floor is fixed. It was a paper jam the size of a "
                                    "novel.",)),
         ("Reminder: lock your screen", ("Reminder: lock your screen when you leave your desk, even for a "
                                         "minute.",))),
        neutral=("Questions? Reply to this message or open a ticket in the helpdesk portal.",), n=(1, 2)),
    "facilities": paired(
        (("Parking garage closed {day}", ("The parking garage is closed {day} for resurfacing. Street parking or "
                                          "transit, sorry.",)),
         ("Kitchen cleanup", ("Please clean up your dishes; the fridge gets emptied every Friday at 3.",)),
         ("Fire drill {day}", ("Fire drill {day} at {time}. Meet at the assembly point across the street.",)),
         ("Conference room etiquette", ("Please release conference rooms you don't use; {room} sits empty but "
                                        "booked all week.",)),
         ("Lost and found", ("Someone left a blue umbrella and a water bottle in {room}. They are in the lost and "
                             "found box at reception.",))),
        neutral=("Thanks for helping keep the office pleasant for everyone.",), n=(1, 2)),
    "lunch": paired(
        (("Lunch?", ("Lunch {day}? I'm craving {food}.", "Want to grab {food} after the review?")),
         ("Lunch {day}?", ("Lunch {day}? I'm craving {food}.",)),
         ("Coffee?", ("Coffee at 3? I need to get out of the lab.",)),
         ("Team lunch", ("Team lunch is on me this {day} to celebrate the milestone. Is {food} okay?",)),
         ("Food carts?", ("Food carts at noon? The dumpling truck is back.",))), n=(1, 1)),
    "fyi_article": paired(
        (("FYI: article on {tech}", ("Interesting article on {tech}: https://news.example.com/{num}. The second "
                                     "half is relevant to us.",)),
         ("Interesting read", ("Interesting article on {tech}: https://news.example.com/{num}. The second half is "
                               "relevant to us.",
                               "Worth a look: a long piece on {tech}. I don't agree with the conclusions but the "
                               "data is good.")),
         ("Worth a look", ("Worth a look: a long piece on {tech}. I don't agree with the conclusions but the data "
                           "is good.",)),
         ("Saw this and thought of you", ("Saw this talk on {tech} and thought of our roadmap discussion.",))),
        n=(1, 2)),
    "vendor": paired(
        (("Quick question about your sensor needs", ("Quick question: what does your team use for spectral "
                                                     "calibration today? We may be able to help.",)),
         ("Introducing our calibration services", ("I wanted to introduce our calibration services; we work with "
                                                   "many instrument makers.",)),
         ("Following up", ("Following up on my previous note. Would you have 15 minutes {week}?",)),
         ("Partnership opportunity", ("We'd like to explore a partnership: we resell optical components in {num} "
                                      "countries and your line would fit well.",))),
        neutral=("Our new optical bench cuts alignment time in half. Happy to send a demo unit.",), n=(1, 2)),
    "customer": paired(
        (("Ticket #{pr}: calibration question", ("{customer} asked whether they can recalibrate in the field "
                                                 "without the reference tile.",)),
         ("Question from {customer}", ("{customer} asked whether they can recalibrate in the field without the "
                                       "reference tile.",)),
         ("Re: Readings drift", ("The customer sees a slow drift of the readings over a month. Probably a dirty "
                                 "window; I sent cleaning instructions.",)),
         ("Training request from {customer}", ("{customer} would like a training session for their new "
                                               "technicians {week}.",)),
         ("Ticket #{pr}: display issue", ("Closing the ticket: the customer confirmed the firmware update fixed "
                                          "the display issue.",)))),
    "doc_edit": paired(
        (("Comments on {doc}", ("I've added comments to {doc}. Mostly clarity; section 3 needs a diagram.",)),
         ("Re: Draft for review", ("I've added comments to {doc}. Mostly clarity; section 3 needs a diagram.",)),
         ("Edits to the user manual", ("Edits to the user manual are tracked; I rewrote the safety section.",)),
         ("Final version?", ("Is this the final version? I'll send it to the printer {day}.",))),
        neutral=("Small typo on page 4, otherwise looks good.",)),
    "conference": paired(
        (("Call for papers", ("The call for papers for the optics workshop is open until {date}.",)),
         ("Conference registration", ("Registration for the conference closes {date}; the early-bird rate is "
                                      "$450.",)),
         ("Workshop invitation", ("You're invited to the optics workshop; the call for papers is open until "
                                  "{date}.",)),
         ("Speaker slot?", ("Would you be interested in joining a panel on {tech}?",))), n=(1, 2)),
    "thanks": paired(
        (("Thanks!", ("Thanks for jumping in on the demo today, it saved us.",
                      "Great job on the presentation. The customer was impressed.")),
         ("Thank you", ("Thanks for jumping in on the demo today, it saved us.",)),
         ("Great job today", ("Great job on the presentation. The customer was impressed.",)),
         ("Kudos", ("Kudos to the test team for finding that bug before release.",))), n=(1, 1)),
    "seminar": paired(
        (("Seminar: {tech}", ("This week's seminar is on {tech} and market design. 4pm, room 210.",)),
         ("Workshop on market design", ("The market design workshop is on {date} in room 210; lunch is "
                                        "provided, please register.",)),
         ("Reading group this week", ("Reading group: we discuss the new paper on platform pricing.",)),
         ("Visitor next week", ("We have a visitor from the London School next week; sign up for meetings.",))),
        n=(1, 2)),
    "social": paired(
        (("Card for {colleague_first}", ("Please sign the card for {colleague_first}'s new baby; it's at the front "
                                         "desk until Thursday.",)),
         ("Charity 5k", ("The charity 5k is on {date}; we have {num} runners signed up and family members are "
                         "welcome.",)),
         ("Book club", ("Book club this month: a novel about three generations of a family vineyard. {day} at noon "
                        "in {room}.",)),
         ("Potluck Friday", ("Potluck Friday: bring a dish from your hometown. Kids' drawings for the wall are "
                             "welcome too.",)),
         ("Congrats to {colleague_first}", ("Congratulations to {colleague} on twenty years at Arclight! Cake in "
                                            "the kitchen at 3.",)),
         ("Bike to work week", ("Bike to work week starts Monday; free breakfast for everyone who rides.",)),
         ("Thank you all", ("Thanks everyone for the birthday wishes and the very embarrassing balloons.",))),
        n=(1, 2)),
    "expenses": paired(
        (("Reminder: expense reports due", ("Reminder: expense reports for last month are due {date}. Receipts go "
                                            "in the portal, not email.",)),
         ("Expense policy update", ("Per the updated policy, economy fares for flights under six hours.",)),
         ("Travel policy", ("Per the updated policy, economy fares for flights under six hours.",))),
        neutral=("Please don't email receipts with full card numbers; upload them to the portal.",), n=(1, 2)),
}

# Newsletter and press (HTML-only, public)
NEWSLETTER_SUBJECTS = ("Sensor Weekly: {tech}", "Sensor Weekly: what's new in optics", "This week in sensing")
NEWSLETTER_PARAS = (
    "In this issue: {tech}, a new standard for spectral data formats, and an interview with a calibration "
    "pioneer.",
    "Market watch: handheld spectrometer shipments grew {pct} last year, driven by agriculture and recycling.",
    "Events: SensorCon opens {date} in {city}. Early registration ends soon.",
    "Product news: three new LiDAR modules, one under $100.",
    "Opinion: why every sensor maker needs a data strategy.",
)
# A press release: (subject, its paragraphs in order).
PRESS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Press release: Arclight partners with {customer}", (
        "PORTLAND, Ore. -- Arclight Sensorworks today announced a partnership with {customer} to monitor water "
        "quality across {num} sites.",
        "All customer data is handled under strict confidentiality agreements and stored in the United States.",
        "About Arclight: Arclight Sensorworks designs optical sensors for agriculture, utilities and industry.",
        "Media contact: Derek Osborne, press@arclight.example.com.")),
    ("Press release (public): new product", (
        "PORTLAND, Ore. -- Arclight Sensorworks today introduced a new handheld water-quality probe that reads "
        "{num} parameters in under a minute, for utilities and farms.",
        "The probe ships next quarter; pricing is on the Arclight website.",
        "About Arclight: Arclight Sensorworks designs optical sensors for agriculture, utilities and industry.",
        "Media contact: Derek Osborne, press@arclight.example.com.")),
)

# ------------------------------------------------------------------------------------------------
# Sensitive kinds: whole messages and one-sentence asides
SENSITIVE: dict[str, Kind] = {
    "family": paired(
        (("Saturday", ("{kid} has a birthday party to go to Saturday at 2; can you drive and pick up a present on "
                       "the way?",
                       "My sister is staying with us this weekend with the two boys, brace yourself.")),
         ("pick up", ("Can you pick up {kid} from school today? I'm stuck in a review until 5.",)),
         ("Thanksgiving plans", ("Everyone is coming to us for Thanksgiving this year. I said we'd do the turkey and "
                                 "Beth brings pies.",)),
         ("Mom's birthday", ("Mom's birthday is on Sunday week; I ordered the cake, can you pick up a card and "
                             "flowers?",)),
         ("recital tonight", ("{kid}'s recital is at 7 tonight, please don't be late again.",)),
         ("dentist", ("The dentist moved {kid}'s appointment to {day} at {time}. Can you take her?",)),
         ("weekend plans", ("My sister is staying with us this weekend with the two boys, brace yourself.",)),
         ("Re: school forms", ("I signed the school forms and left the check for the field trip on the "
                               "counter.",)),
         ("Uncle Ray", ("Uncle Ray called; he's moving into the assisted living place on {date}. I'll help him "
                        "pack.",)),
         ("the roof", ("The roofer came by; it's going to be {amount} to fix the leak over {kid}'s room.",)),
         ("pediatrician", ("Can you call the pediatrician back? They want to move {kid}'s checkup.",)),
         ("our anniversary", ("Our anniversary is on the 14th, book the place by the river?",))),
        neutral=("Uncle Ray called; he's moving into the assisted living place on {date}. I'll help him pack.",
                 "The roofer came by; it's going to be {amount} to fix the leak over {kid}'s room.",
                 "Can you call the pediatrician back? They want to move {kid}'s checkup.")),
    "romance": paired(
        (("tonight", ("Come over tonight after work? I'll leave the porch light on for you.",)),
         ("missing you", ("Missing you terribly. This conference is dull without you.",)),
         ("dinner Friday?", ("Dinner at my place Friday? I'll cook, you bring the wine.",
                             "I keep thinking about last night. Can I see you again Friday?")),
         ("last night", ("I keep thinking about last night. Can I see you again Friday?",
                         "You looked beautiful last night. I still can't believe you said yes.")),
         ("us", ("I love you. I know we said we'd go slow, but I mean it.",
                 "Please don't tell anyone at work about us yet.")),
         ("our weekend", ("I booked the little inn on the coast for our weekend. Just us, no phones.",)),
         ("about Sunday", ("I'm sorry about the fight on Sunday. I hate it when we argue.",))),
        neutral=("I love you. I know we said we'd go slow, but I mean it.",
                 "Please don't tell anyone at work about us yet.",
                 "I booked the little inn on the coast for our weekend. Just us, no phones.")),
    "health": paired(
        (("doctor's appointment", ("I've been having panic attacks before the big reviews. The doctor says it's "
                                   "stress.",
                                   "The cardiologist wants me on a monitor for two weeks; I'll wear it under my "
                                   "shirt at work.",
                                   "Mom's scan showed a tumour; the oncologist sees us on {day}.")),
         ("out tomorrow", ("I'll be out tomorrow for a biopsy. Please keep it quiet, I don't want a fuss.",)),
         ("medical leave", ("I need to take medical leave for surgery on my knee, probably six weeks.",
                            "My back surgery is scheduled for {date}; I'll need about four weeks of leave.")),
         ("test results", ("The test results came back: it's type 2 diabetes. I'm starting medication.",
                           "Mom's scan showed a tumour; the oncologist sees us on {day}.")),
         ("surgery", ("I need to take medical leave for surgery on my knee, probably six weeks.",
                      "My back surgery is scheduled for {date}; I'll need about four weeks of leave.")),
         ("cutting back", ("My therapist says I should cut back my hours for a while; the anxiety is getting "
                           "worse.",)),
         ("please keep this quiet", ("I was diagnosed with depression last month and I'm on sertraline now. Please "
                                     "don't tell the team.",))),
        neutral=("My therapist says I should cut back my hours for a while; the anxiety is getting worse.",
                 "I was diagnosed with depression last month and I'm on sertraline now. Please don't tell the "
                 "team.")),
    "receipt": paired(
        (("Fwd: flight receipt", ("Forwarding my flight receipt: the fare was {fare}, paid with my own card "
                                  "{card}.",)),
         ("Expense receipts", ("Here are my receipts for the {city} trip; the card I used is {card} if finance "
                               "asks.",
                               "The dinner and the taxi are on my own card ({card}); total {fare}.")),
         ("receipts from the {city} trip", ("Here are my receipts for the {city} trip; the card I used is {card} if "
                                            "finance asks.",)),
         ("Re: reimbursement", ("I paid the hotel with my personal card {card}, so please reimburse to that card.",
                                "My billing address changed, it's now {address}. The bank keeps rejecting the "
                                "refund.")),
         ("hotel bill", ("I paid the hotel with my personal card {card}, so please reimburse to that card.",
                         "Can you book me the same hotel as last time? Use the card ending {last4}; the booking "
                         "number was {booking}."))),
        neutral=("The dinner and the taxi are on my own card ({card}); total {fare}.",)),
    "pii": paired(
        (("Direct deposit form", ("For direct deposit: routing {routing}, account {account}.",
                                  "My new bank details for the expense refund: routing {routing}, checking account "
                                  "{account}.")),
         ("Payroll update", ("New home address for payroll: {address}. Phone {phone}.",
                             "For direct deposit: routing {routing}, account {account}.")),
         ("Onboarding paperwork", ("Here's the form for the background check: born {dob}, SSN {ssn}, driver's "
                                   "licence OR{licence}.",
                                   "My SSN is {ssn} and my date of birth is {dob} for the insurance form.")),
         ("W-4 and I-9", ("My SSN is {ssn} and my date of birth is {dob} for the insurance form.",
                          "Here's the form for the background check: born {dob}, SSN {ssn}, driver's licence "
                          "OR{licence}.")),
         ("Benefits enrollment", ("My SSN is {ssn} and my date of birth is {dob} for the insurance form.",
                                  "Update my emergency contact: my sister, {phone}, same address as me "
                                  "({address}).")),
         ("Wire details", ("Please wire the reimbursement to IBAN {iban}.",))),
        neutral=("Update my emergency contact: my sister, {phone}, same address as me ({address}).",)),
    "student": Kind(
        ("Grades", "Student petition", "Re: incomplete"),
        ("Final grades: the student got a C- and failed the midterm.",
         "The student is on academic probation; don't mention it in the letter.")),
    "litigation": Kind(
        ("Privileged: claim", "Legal hold", "Re: the lawsuit", "Deposition"),
        ("Privileged and confidential. A former employee filed a wrongful termination claim; do not discuss it.",
         "Legal hold: preserve everything related to the former warehouse manager's complaint.",
         "Our counsel thinks we will settle the harassment complaint before it goes to trial.",
         "The subpoena asks for all emails about the 2019 recall.")),
    "trade_secret": paired(
        (("Roadmap - internal only", ("Internal only: next year's roadmap includes a sub-$1000 spectrometer for "
                                      "farmers.",
                                      "Unreleased: Kestrel 2 adds thermal imaging; launch is {month} next year.",
                                      "We are quietly dropping support for the L1 line next year; customers won't "
                                      "hear until Q3.")),
         ("Confidential: pricing", ("Confidential pricing: distributors get {pct} off list; never quote it to "
                                    "customers.",
                                    "The cost model for Lumen is attached; the sensor die is {amount} and we mark it "
                                    "up four times.",
                                    "Don't forward: {customer} is evaluating us against two competitors and our bid "
                                    "is {k}.")),
         ("Do not forward", ("Don't forward: {customer} is evaluating us against two competitors and our bid is {k}.",
                             "The calibration algorithm uses a proprietary reference library of {bignum} spectra; do "
                             "not share.",
                             "The secret to the one-second scan is the interleaved exposure; it's not in any patent "
                             "yet.")),
         ("Unreleased specs", ("Unreleased: Kestrel 2 adds thermal imaging; launch is {month} next year.",
                               "The secret to the one-second scan is the interleaved exposure; it's not in any "
                               "patent yet."))),
        neutral=("The calibration algorithm uses a proprietary reference library of {bignum} spectra; do not "
                 "share.",)),
    "contract": paired(
        (("NDA", ("Under our NDA with {customer}, we can't disclose the contract value of {k}.",)),
         ("Contract terms", ("The exclusivity clause locks us in for three years; don't mention it to the other "
                             "vendors.",
                             "Under our NDA with {customer}, we can't disclose the contract value of {k}.")),
         ("Re: the negotiation", ("Our bottom line in the negotiation is {amount} per unit.",)),
         ("MSA redlines", ("The exclusivity clause locks us in for three years; don't mention it to the other "
                           "vendors.",)))),
    "reputational": Kind(
        ("between us", "the incident", "this can't get out"),
        ("We knowingly shipped {num} units with the faulty battery; if this gets out we're done.",
         "Maggie expensed a $3,000 dinner for her friends and booked it as a customer meal.",
         "I signed off on the test report without running the tests. I'm not proud of it.",
         "The demo at the trade show was faked; the readings were prerecorded.",
         "We paid the consultant to write the 'independent' review of our product.",
         "I backdated the calibration certificates so the shipment could go out.")),
    "membership": paired(
        (("choir", ("See you at choir practice at St. Anne's on Wednesday.",)),
         ("parish council", ("The parish council meets tonight at St. Anne's; I'm taking the minutes again.",)),
         ("union meeting", ("The union local meets Thursday; we're voting on the strike fund.",)),
         ("synagogue board", ("I'm on the synagogue board now, so Friday evenings are out.",)),
         ("campaign volunteers", ("I volunteered for the campaign; knocking on doors this weekend.",)))),
    "stigmatised": paired(
        (("last night", ("Still hungover from last night; I shouldn't have had the fourth drink.",
                         "We smoked a joint after the launch party and I don't remember the cab home.",
                         "I was pulled over after the party; they let me off with a warning, thank god.")),
         ("rough morning", ("Still hungover from last night; I shouldn't have had the fourth drink.",
                            "I lost a lot of money at the casino again; I need an advance.")),
         ("meeting tonight", ("I've been going to AA meetings for six months now.",))),
        neutral=("Honestly I need a few edibles to get through these offsites.",
                 "I lost a lot of money at the casino again; I need an advance.")),
    "offensive": Kind(
        ("WTF", "this crap", "ridiculous"),
        ("What the f*** is wrong with the test lab? This crap is unacceptable.",
         "These morons in procurement can't read a spec.",
         "Tell that idiot customer to RTFM.",
         "What a clusterf***. Whoever signed off on this should be fired.",
         "The sales guys are a bunch of lying weasels, every damn quarter.")),
    "gossip": Kind(
        ("did you hear", "between us", "omg", "gossip"),
        ("Did you hear {colleague} is having an affair with someone in sales?",
         "Apparently {colleague} is getting fired; HR had a closed-door meeting with them for an hour.",
         "Between us, {colleague} cried in the bathroom after the review.",
         "{colleague} is interviewing at a competitor; she was on LinkedIn all day.",
         "You didn't hear it from me, but {colleague} and the new VP were at the same hotel in {city}.",
         "Word is {colleague} is pregnant and hasn't told HR yet.",
         "{colleague} showed up to the offsite drunk again. Third time this year.",
         "Apparently {colleague}'s husband moved out. That explains a lot.")),
    "peer_opinion": Kind(
        ("honest opinion", "re: the team", "frankly"),
        ("Honestly {colleague} doesn't understand the optics and wastes everyone's time.",
         "{colleague}'s code is a mess; I rewrite half of it every sprint.",
         "Frankly, {colleague} is a lousy manager, which is why three people left.",
         "I wouldn't put {colleague} on a critical project again; the work is sloppy and always late.",
         "{colleague} takes credit for everything the team does. Everyone sees it except Maggie.",
         "Between you and me, {colleague} is coasting until the stock vests.")),
    "review": paired(
        (("reference for {colleague_first}", ("Reference, confidential: {colleague} is competent but difficult to "
                                              "work with and left the last project unfinished.",)),
         ("performance review", ("Performance review for {colleague}: meets expectations on delivery, needs "
                                 "improvement on communication, frequently misses deadlines.",
                                 "Calibration notes: {colleague} rated 'below expectations'; put on a performance "
                                 "plan in {month}.")),
         ("feedback for the committee", ("For the committee: the candidate's teaching evaluations are poor and "
                                         "students complain about grading.",
                                         "Letter for {colleague}'s promotion: solid citizen, modest research, I "
                                         "cannot rank her in the top ten percent.")),
         ("confidential evaluation", ("Referee report, confidential: the submission by {colleague} is competent but "
                                      "derivative; reject.",
                                      "Reference, confidential: {colleague} is competent but difficult to work with "
                                      "and left the last project unfinished.",
                                      "Calibration notes: {colleague} rated 'below expectations'; put on a "
                                      "performance plan in {month}.")))),
    "unflattering_family": paired(
        (("my brother", ("My brother-in-law is an idiot. He lost Mom's savings on crypto.",)),
         ("the in-laws", ("My brother-in-law is an idiot. He lost Mom's savings on crypto.",
                          "Beth is impossible; she's fighting with Mom about the will again.")),
         ("ugh family", ("My mother drives me crazy; she called six times today about the thermostat.",
                         "My son is lazy; he hasn't looked for a job since graduating.",
                         "My husband forgot our anniversary again. Typical.",
                         "Beth is impossible; she's fighting with Mom about the will again."))),
        neutral=("My mother drives me crazy; she called six times today about the thermostat.",
                 "My husband forgot our anniversary again. Typical.")),
    "emotional": Kind(
        ("I can't do this", "upset", "sorry about today"),
        ("I'm so angry I could scream. Nobody listens in these meetings.",
         "I broke down in front of the team today. I'm embarrassed.",
         "I feel completely worthless after that review; maybe I should just quit.",
         "I sat in the car for twenty minutes before I could walk back in. I'm not okay.",
         "I'm so hurt that nobody stood up for me in the meeting.",
         "Honestly I'm terrified about the layoffs. I can't lose this job with the mortgage.")),
}

# One-sentence asides that plant a kind inside an otherwise ordinary work message.
ASIDES: dict[str, tuple[str, ...]] = {
    "family": ("I have to leave at 3 today to pick up {kid} from daycare.",
               "I'll be offline Friday, it's {kid}'s birthday and we're taking her to the coast.",
               "My parents are visiting this week so I'll be slower to reply."),
    "romance": ("Carla says hi, by the way; we're back together.",
                "I'm meeting my girlfriend's parents this weekend, wish me luck."),
    "health": ("I'm on antibiotics for a kidney infection so I may be slow.",
               "Sorry, I have a chemo session Thursday, so can we do Wednesday?",
               "My doctor wants me off screens for a week after the concussion."),
    "receipt": ("Receipt attached: card {card}, total {amount}.",
                "I paid the caterer with my personal card {card}; please reimburse."),
    "pii": ("My cell is {phone} and my home address is {address} if the courier needs it.",
            "For the visa letter: DOB {dob}, passport to follow."),
    "litigation": ("Also, don't put anything about the Kessler matter in writing; we're under a litigation hold.",),
    "trade_secret": ("FYI only: Falcon Pro ships with the new detector next spring, keep it quiet.",
                     "The yield on the new detector is only {pct}; don't share that number outside the team."),
    "contract": ("Don't mention the exclusivity clause to {customer}.",),
    "reputational": ("Off the record, the recall was our fault, not the supplier's.",),
    "membership": ("I'll be late Wednesday, I have my parish council meeting.",
                   "Can't make Thursday, it's my union meeting."),
    "stigmatised": ("Sorry if I'm slow today, I'm horribly hungover.",),
    "offensive": ("This is total bullshit.", "The vendor screwed us again, the bastards."),
    "gossip": ("Did you hear {colleague} is leaving? Apparently she was pushed out.",
               "Rumour is {colleague} is dating someone on the board."),
    "peer_opinion": ("Honestly, {colleague} has no clue what he's doing.",
                     "{colleague} is useless in meetings, just talks to hear himself."),
    "review": ("Between us, {colleague}'s performance review was brutal, lowest rating on the team.",),
    "unflattering_family": ("My sister is a disaster with money, as usual.",),
    "emotional": ("I'm at the end of my rope with this, honestly.",
                  "Sorry I lost my temper this morning, I'm not sleeping."),
}

# Receipts and confirmations sent by booking systems (always sensitive for a persona who minds receipts).
SYSTEM_RECEIPTS: dict[str, Kind] = {
    "skyways.bookings": Kind(
        ("Your booking confirmation {booking}", "Your e-ticket receipt", "Itinerary change {booking}",
         "Check in now for your flight to {city}"),
        ("SkyWays Travel - booking confirmation\n\nPassenger: {rname}\nBooking reference: {booking}\n"
         "Flight: Portland (PDX) to {city}, {date}, departs {time}\nFare: {fare}\nPaid with: {paycard}\n"
         "Billing address: {address}\nFrequent flyer: SW{flyer}",
         "Your itinerary has changed. New departure: {date} at {time}. Your seat 14C is confirmed.",
         "Baggage: 1 checked bag included. Changes are possible up to 24 hours before departure.",
         "Thank you for flying SkyWays. Keep this receipt for your records."),
        # after the receipt (paragraph 0): the itinerary change only under its subject
        leads=((3,), (3,), (1,), (2,)), neutral=(2, 3)),
    "harborview.hotel": Kind(
        ("Your folio from Harborview Hotel", "Reservation confirmed - Harborview Hotel", "Receipt {booking}"),
        ("Harborview Hotel - guest folio\n\nGuest: {rname}\nConfirmation: {booking}\nArrival: {date}\n"
         "Nights: {num}\nRoom rate: $219.00\nTotal charged: {fare}\nCard: {paycard}\nHome address: {address}",
         "We look forward to welcoming you again. Breakfast is served 6:30 to 10:30 in the Lantern room.",
         "Minibar and parking charges appear on a separate receipt."),
        leads=((1, 2), (1,), (2,))),
}

REPLY_LINES = ("Sounds good.", "Thanks, will do.", "Works for me.", "Agreed.", "Got it, thanks.", "Makes sense.",
               "Let me check and get back to you.", "Yes, go ahead.", "Thanks for the update.",
               "Can we discuss tomorrow?", "+1", "Good point.", "I'll take care of it.",
               "Not sure I agree, but ok.", "See my comments below.", "Thanks!", "Ok.",
               "Quick answer below.", "Let's talk at the standup.")

# Vocabulary-sharing sentences that are NOT sensitive.
DECOYS: tuple[str, ...] = (
    "Run the system health check before the demo, please.",
    "Customer data is kept confidential as always, per our public privacy policy.",
    "Order number {fakecard} shipped today.",
    "Reference number {fakecard} for the support case.",
    "Family day at the office is {date}; kids welcome, there will be a bouncy castle.",
    "The trade show booth is confirmed for {date}.",
    "The patent for the Kestrel mount is now public.",
    "Our killer feature is the one-second scan.",
    "The blood drive is in {room} on {day}.",
    "Please mark the slides 'Confidential - draft' per the template; nothing in them is secret.",
    "The product family grew to five models this year.",
    "The sensor health dashboard is green across the fleet.",
    "Happy birthday to {colleague_first}! Cake in the kitchen at 3.",
    "The lawsuit in the news is about a different company entirely.",
    "Tracking number {tracking}.",
    "I've filed the expense report with the receipts in the portal.",
    "Between us and the supplier, the schedule is fine.",
    "Honestly, the new test rig is great.",
    "Frankly, the numbers look good this month.",
    "Did you hear the keynote recording is online?",
    "I'm so excited about this, it's the best news all year!",
    "The doctor's office next door is moving out, so we get their parking spots.",
    "Legal published the updated public privacy policy on the website.",
    "Please don't forward the draft yet, it still has typos.",
    "The account number for the vendor portal is on the invoice.",
    "Dinner with the customer went well; they loved the wine.",
    "Sorry, I'm swamped this week, but the report is coming.",
    "My kids loved the open house at the office, thanks for organising it.",
    "Our NDA template is on the intranet if the vendor asks; it's the standard public one.",
    "The wellness challenge leaderboard is up, go team optics!",
    "The recall notice in the paper was for a car seat, not anything of ours.",
    "HR says the new parental leave policy is posted on the intranet.",
    "Don't forget the phone number for the conference hotline: {phone}.",
)

KIDS = ("Maya", "Emily", "Ava", "Noah", "Leo", "Sophie")
