"""The cast of the demo collection: a fictional sensor company, its people and outside contacts.

Every name, address and organisation here is invented. Domains use the reserved
``.example`` names so no generated address can belong to anyone real.
"""
from __future__ import annotations

from dataclasses import dataclass

ORG_NAME = "Arclight Sensorworks"
ORG_DOMAIN = "arclight.example.com"
ORG_ADDRESS = "400 Harbor Street, Suite 1200, Portland, OR 97204"
UNIVERSITY = "Stonebridge University"
UNI_DOMAIN = "stonebridge.example.edu"


@dataclass(frozen=True)
class Style:
    """How a person writes."""
    greetings: tuple[str, ...]          # templates, {first} = recipient's first name
    signoffs: tuple[str, ...]           # templates, {me} = sender's short name
    signature: tuple[str, ...] = ()     # signature block lines (may use {name}, {title}, {phone})
    formality: int = 1                  # 0 casual .. 2 formal
    typo_rate: float = 0.0              # chance per word of a typo
    verbosity: float = 1.0              # multiplier on the number of paragraphs
    lowercase: bool = False             # writes mostly in lower case
    client: str = "outlook"             # outlook | thunderbird | apple | webmail | mobile | system
    quote: str = "outlook"              # outlook | gmail


@dataclass(frozen=True)
class Person:
    key: str
    name: str
    email: str
    title: str
    dept: str
    style: Style
    internal: bool = True
    phone: str = ""
    nick: str = ""
    tz: str = "US/Pacific"              # see dates.offset_for
    charset: str = "utf-8"              # charset used for an encoded display name
    family: tuple[str, ...] = ()        # keys of family members / partners

    @property
    def first(self) -> str:
        return self.name.split()[0]

    @property
    def last(self) -> str:
        return self.name.split()[-1]

    @property
    def short(self) -> str:
        return self.nick or self.first


# --- style archetypes -------------------------------------------------------------------------
_SIG_CORP = ("{name}", "{title}", "Arclight Sensorworks | 400 Harbor Street, Portland OR", "{phone}")
_SIG_SHORT = ("{name} | {title}", "Arclight Sensorworks")
_SIG_UNI = ("{name}", "{title}", "Department of Economics, Stonebridge University", "{phone}")

EXEC = Style(("{first},", "Hi {first},", "{first} -"), ("Thanks,\n{me}", "{me}", "Best,\n{me}"),
             _SIG_CORP, formality=2, typo_rate=0.002, verbosity=0.8, client="outlook", quote="outlook")
ENGINEER = Style(("Hi {first},", "{first},", "Hey {first},", ""), ("Thanks,\n{me}", "-{me}", "Cheers,\n{me}", "{me}"),
                 _SIG_SHORT, formality=1, typo_rate=0.01, verbosity=1.0, client="thunderbird", quote="gmail")
TERSE = Style(("", "{first} -", "{first},"), ("-{me}", "{me}", ""), (), formality=0, typo_rate=0.02,
              verbosity=0.6, lowercase=False, client="thunderbird", quote="gmail")
CHATTY = Style(("Hi {first}!", "Hey {first},", "Hi {first},", "Good morning {first},"),
               ("Thanks so much!\n{me}", "Cheers,\n{me}", "xo {me}", "Talk soon,\n{me}"), _SIG_SHORT,
               formality=0, typo_rate=0.015, verbosity=1.5, client="apple", quote="gmail")
FORMAL = Style(("Dear {first},", "Hello {first},", "Good afternoon {first},"),
               ("Kind regards,\n{me}", "Best regards,\n{me}", "Sincerely,\n{me}"), _SIG_CORP,
               formality=2, typo_rate=0.0, verbosity=1.2, client="outlook", quote="outlook")
ACADEMIC = Style(("Dear {first},", "Hi {first},", "{first} --"), ("Best,\n{me}", "All best,\n{me}", "{me}"),
                 _SIG_UNI, formality=1, typo_rate=0.006, verbosity=1.4, client="thunderbird", quote="gmail")
DIARIST = Style(("Hi {first},", "{first}!", "Oh {first},", "Hi all,"), ("H.", "xx H", "Holly", "Best, Holly"),
                _SIG_UNI, formality=0, typo_rate=0.012, verbosity=1.6, client="apple", quote="gmail")
MOBILE = Style(("", "{first}", "Hi"), ("{me}", "Sent from my phone", ""), (), formality=0, typo_rate=0.03,
               verbosity=0.4, lowercase=True, client="mobile", quote="gmail")
WEBMAIL = Style(("Hi {first},", "Hey!", "{first}!", "Hi hon,"), ("love,\n{me}", "xx\n{me}", "{me}", "Love you"),
                (), formality=0, typo_rate=0.02, verbosity=0.9, client="webmail", quote="gmail")
VENDOR = Style(("Hello {first},", "Dear {first},", "Hi {first},"), ("Best regards,\n{me}", "Regards,\n{me}"),
               ("{name}", "{title}", "{phone}"), formality=2, typo_rate=0.003, verbosity=1.2, client="outlook",
               quote="outlook")
SYSTEM = Style(("",), ("",), (), formality=2, client="system", quote="outlook")
SNIBERT = Style(("{first},", "Hi {first},", "{first} -"), ("John", "-- John", "Thanks, John", "J."),
                ("John Snibert", "Chief Technologist, Arclight Sensorworks",
                 "\"Measure twice, ship once.\""), formality=1, typo_rate=0.004, verbosity=1.1,
                client="thunderbird", quote="gmail")


def _p(key, name, title, dept, style, phone, nick="", tz="US/Pacific", charset="utf-8", family=(), email=None):
    local = email or key
    return Person(key=key, name=name, email=f"{local}@{ORG_DOMAIN}", title=title, dept=dept, style=style,
                  phone=phone, nick=nick, tz=tz, charset=charset, family=tuple(family))


def _x(key, name, email, title, dept, style, phone="", nick="", tz="US/Pacific", charset="utf-8", family=()):
    return Person(key=key, name=name, email=email, title=title, dept=dept, style=style, internal=False,
                  phone=phone, nick=nick, tz=tz, charset=charset, family=tuple(family))


INTERNAL: tuple[Person, ...] = (
    _p("margaret.osei", "Margaret Osei", "Chief Executive Officer", "Executive", EXEC, "(503) 555-0101", nick="Maggie"),
    _p("richard.halloway", "Richard Halloway", "Chief Financial Officer", "Finance", FORMAL, "(503) 555-0102", nick="Rick"),
    _p("priya.raman", "Priya Raman", "VP Product", "Product", CHATTY, "(503) 555-0103", family=("arjun.raman",)),
    _p("john.snibert", "John Snibert", "Chief Technologist", "Engineering", SNIBERT, "(503) 555-0104",
       family=("linda.snibert", "emily.snibert", "michael.snibert", "carla.benedetti")),
    _p("elena.vasquez", "Elena Vasquez", "Director of People", "People", FORMAL, "(503) 555-0105"),
    _p("grace.lindqvist", "Grace Lindqvist", "General Counsel", "Legal", FORMAL, "(503) 555-0106"),
    _p("tom.brennan", "Tom Brennan", "VP Sales", "Sales", EXEC, "(503) 555-0107", tz="US/Eastern",
       family=("kelly.brennan",)),
    _p("dave.kowalski", "Dave Kowalski", "Senior Engineering Manager, Optics", "Engineering", ENGINEER, "(503) 555-0108"),
    _p("aisha.mahmoud", "Aisha Mahmoud", "Senior Optical Engineer", "Engineering", ENGINEER, "(503) 555-0109"),
    _p("bjorn.akesson", "Björn Åkesson", "Firmware Lead", "Engineering", TERSE, "(503) 555-0110", nick="Björn",
       tz="Europe/Stockholm", charset="iso-8859-1"),
    _p("kenji.watanabe", "Kenji Watanabe", "Firmware Engineer", "Engineering", ENGINEER, "(503) 555-0111", tz="Asia/Tokyo"),
    _p("lucia.fernandez", "Lucía Fernández", "Data Scientist", "Engineering", CHATTY, "(503) 555-0112", nick="Lucía",
       charset="iso-8859-1"),
    _p("raj.patel", "Raj Patel", "Data Engineering Lead", "Engineering", ENGINEER, "(503) 555-0113", tz="Asia/Kolkata"),
    _p("sophie.laurent", "Sophie Laurent", "Test Engineer", "Engineering", ENGINEER, "(503) 555-0114"),
    _p("marcus.reed", "Marcus Reed", "Hardware Engineer", "Engineering", TERSE, "(503) 555-0115"),
    _p("chen.wei", "Chen Wei", "Optical Engineer", "Engineering", ENGINEER, "(503) 555-0116"),
    _p("olivia.grant", "Olivia Grant", "QA Manager", "Engineering", FORMAL, "(503) 555-0117", nick="Liv"),
    _p("nate.sullivan", "Nate Sullivan", "DevOps Engineer", "IT", TERSE, "(503) 555-0118"),
    _p("francois.dubois", "François Dubois", "Systems Architect", "Engineering", ENGINEER, "(503) 555-0119",
       nick="François", tz="Europe/Paris", charset="iso-8859-1"),
    _p("hannah.becker", "Hannah Becker", "Mechanical Engineer", "Engineering", ENGINEER, "(503) 555-0120",
       tz="Europe/Berlin"),
    _p("samir.haddad", "Samir Haddad", "Security Engineer", "IT", TERSE, "(503) 555-0121"),
    _p("zoe.clarke", "Zoë Clarke", "UX Designer", "Product", CHATTY, "(503) 555-0122", nick="Zoë", tz="Europe/London"),
    _p("jessica.tran", "Jessica Tran", "Product Manager, Falcon", "Product", CHATTY, "(503) 555-0123", nick="Jess"),
    _p("owen.murphy", "Owen Murphy", "Product Manager, Lumen", "Product", ENGINEER, "(503) 555-0124"),
    _p("camille.roy", "Camille Roy", "Marketing Director", "Marketing", EXEC, "(503) 555-0125"),
    _p("derek.osborne", "Derek Osborne", "Communications Manager", "Marketing", FORMAL, "(503) 555-0126"),
    _p("mia.johansson", "Mia Johansson", "Events Coordinator", "Marketing", CHATTY, "(503) 555-0127"),
    _p("ben.carter", "Ben Carter", "Brand Designer", "Marketing", TERSE, "(503) 555-0128"),
    _p("luis.ortega", "Luis Ortega", "Key Account Manager", "Sales", VENDOR, "(503) 555-0129", tz="US/Central"),
    _p("rachel.kim", "Rachel Kim", "Customer Success Manager", "Sales", CHATTY, "(503) 555-0130"),
    _p("ahmed.karim", "Ahmed Karim", "Support Engineer", "Sales", ENGINEER, "(503) 555-0131"),
    _p("patricia.nolan", "Patricia Nolan", "Sales Operations Manager", "Sales", FORMAL, "(503) 555-0132", nick="Pat",
       tz="US/Eastern"),
    _p("gary.whitman", "Gary Whitman", "Controller", "Finance", FORMAL, "(503) 555-0133"),
    _p("nina.petrova", "Nina Petrova", "Financial Analyst", "Finance", ENGINEER, "(503) 555-0134"),
    _p("frank.deluca", "Frank DeLuca", "Procurement Manager", "Operations", EXEC, "(503) 555-0135"),
    _p("tasha.williams", "Tasha Williams", "Technical Recruiter", "People", CHATTY, "(503) 555-0136"),
    _p("carol.jennings", "Carol Jennings", "Benefits Manager", "People", FORMAL, "(503) 555-0137"),
    _p("alan.forsythe", "Alan Forsythe", "Patent Counsel", "Legal", FORMAL, "(503) 555-0138"),
    _p("megan.oconnell", "Megan O'Connell", "Paralegal", "Legal", ENGINEER, "(503) 555-0139"),
    _p("walter.huang", "Walter Huang", "Facilities Manager", "Operations", TERSE, "(503) 555-0140"),
    _p("dolores.martin", "Dolores Martín", "Office Manager", "Operations", CHATTY, "(503) 555-0141", charset="iso-8859-1"),
    _p("steve.park", "Steve Park", "Manufacturing Operations Manager", "Operations", TERSE, "(503) 555-0142"),
    _p("ingrid.sorensen", "Ingrid Sørensen", "Supply Chain Analyst", "Operations", ENGINEER, "(503) 555-0143",
       tz="Europe/Berlin", charset="iso-8859-1"),
    _p("kevin.obrien", "Kevin O'Brien", "IT Support Specialist", "IT", TERSE, "(503) 555-0144"),
    _p("lena.fischer", "Lena Fischer", "Executive Assistant to the CEO", "Executive", FORMAL, "(503) 555-0145"),
    _p("it.helpdesk", "Arclight IT Helpdesk", "IT Helpdesk", "IT", SYSTEM, "", email="helpdesk"),
)

EXTERNAL: tuple[Person, ...] = (
    _x("holly.palmer", "Holly Palmer", f"hpalmer@{UNI_DOMAIN}", "Professor of Economics", "Stonebridge Economics",
       DIARIST, "(617) 555-0190", tz="US/Eastern", family=("peter.palmer", "ava.palmer", "june.hollis", "beth.hollis")),
    _x("samuel.okafor", "Samuel Okafor", f"sokafor@{UNI_DOMAIN}", "Assistant Professor of Economics",
       "Stonebridge Economics", ACADEMIC, "(617) 555-0191", tz="US/Eastern"),
    _x("ruth.abernathy", "Ruth Abernathy", f"rabernathy@{UNI_DOMAIN}", "Chair, Department of Economics",
       "Stonebridge Economics", ACADEMIC, "(617) 555-0192", tz="US/Eastern"),
    _x("daniel.cho", "Daniel Cho", f"dcho@{UNI_DOMAIN}", "PhD Candidate", "Stonebridge Economics", TERSE,
       tz="US/Eastern"),
    _x("ivan.morozov", "Ivan Morozov", f"grants@{UNI_DOMAIN}", "Sponsored Research Officer", "Stonebridge Grants Office",
       FORMAL, "(617) 555-0193", tz="US/Eastern"),
    _x("paul.mendes", "Paul Mendes", "pmendes@fabricor.example.com", "Account Executive, Fabricor Manufacturing",
       "Fabricor", VENDOR, "(408) 555-0150"),
    _x("jonathan.kessler", "Jonathan Kessler", "jkessler@kesslerbrandt.example.com", "Partner, Kessler Brandt LLP",
       "Kessler Brandt", FORMAL, "(206) 555-0151"),
    _x("sandra.whitcomb", "Sandra Whitcomb", "swhitcomb@brightwater-utilities.example.com",
       "Director of Grid Operations, Brightwater Utilities", "Brightwater", VENDOR, "(916) 555-0152"),
    _x("victor.almeida", "Victor Almeida", "victor@kineticlabs.example.com", "CEO, Kinetic Labs", "Kinetic Labs",
       EXEC, "(415) 555-0153"),
    _x("nora.castellanos", "Nora Castellanos", "ncastellanos@techwire.example.com", "Senior Reporter, TechWire",
       "TechWire", VENDOR, "(212) 555-0154", tz="US/Eastern"),
    _x("gerald.pike", "Gerald Pike", "gerald.pike@spectrum-office.example.gov",
       "Compliance Officer, Office of Spectrum Compliance", "Regulator", FORMAL, "(202) 555-0155", tz="US/Eastern"),
    _x("yuki.tanaka", "Yuki Tanaka", "program@sensorcon.example.org", "Program Chair, SensorCon", "SensorCon",
       ACADEMIC, tz="Asia/Tokyo"),
    _x("brad.nolan", "Brad Nolan", "brad@talentbridge.example.com", "Senior Recruiter, TalentBridge", "TalentBridge",
       CHATTY, "(312) 555-0156", tz="US/Central"),
    _x("linda.snibert", "Linda Snibert", "linda.snibert@inboxly.example.net", "", "family", WEBMAIL),
    _x("emily.snibert", "Emily Snibert", "em.snibert@postmail.example.org", "", "family", MOBILE, nick="Em"),
    _x("michael.snibert", "Michael Snibert", "mikesnib@inboxly.example.net", "", "family", MOBILE, nick="Mike",
       tz="US/Mountain"),
    _x("carla.benedetti", "Carla Benedetti", "carla.b@postmail.example.org", "", "partner", WEBMAIL),
    _x("peter.palmer", "Peter Palmer", "peter.palmer@inboxly.example.net", "", "family", WEBMAIL, tz="US/Eastern"),
    _x("ava.palmer", "Ava Palmer", "avapalmer07@postmail.example.org", "", "family", MOBILE, tz="US/Eastern"),
    _x("june.hollis", "June Hollis", "junehollis@inboxly.example.net", "", "family", WEBMAIL, tz="US/Eastern"),
    _x("beth.hollis", "Beth Hollis", "bethhollis@postmail.example.org", "", "family", WEBMAIL, tz="US/Central"),
    _x("arjun.raman", "Arjun Raman", "arjun.raman@inboxly.example.net", "", "family", MOBILE),
    _x("kelly.brennan", "Kelly Brennan", "kellyb@postmail.example.org", "", "family", WEBMAIL, tz="US/Eastern"),
    _x("ines.moreau", "Inès Moreau", "ines.moreau@lumiere-optique.example.fr", "Directrice commerciale, Lumière Optique",
       "Lumière Optique", VENDOR, tz="Europe/Paris", charset="iso-8859-1"),
    _x("skyways.bookings", "SkyWays Travel", "bookings@skyways.example.com", "", "travel", SYSTEM),
    _x("harborview.hotel", "Harborview Hotel", "folio@harborview-hotel.example.com", "", "travel", SYSTEM),
    _x("sensor.weekly", "Sensor Weekly", "newsletter@sensorweekly.example.com", "", "news", SYSTEM),
)

ALL: tuple[Person, ...] = INTERNAL + EXTERNAL
BY_KEY: dict[str, Person] = {p.key: p for p in ALL}

# Mailbox owners ("custodians") and the folders they keep. Topics listed per custodian are filed
# into projects.mbox when received instead of inbox.mbox.
CUSTODIANS: tuple[str, ...] = ("john.snibert", "holly.palmer", "priya.raman", "elena.vasquez",
                               "grace.lindqvist", "tom.brennan", "dave.kowalski")
PROJECT_FOLDER_TOPICS: dict[str, tuple[str, ...]] = {
    "john.snibert": ("1", "2", "9", "4"),
    "priya.raman": ("1", "14", "18"),
    "holly.palmer": ("8", "16"),
    "dave.kowalski": ("2", "19"),
}

# Working people (internal, not system accounts)
WORKERS: tuple[str, ...] = tuple(p.key for p in INTERNAL if p.style.client != "system")
ACADEMICS: tuple[str, ...] = ("holly.palmer", "samuel.okafor", "ruth.abernathy", "daniel.cho")


def by_dept(dept: str) -> tuple[str, ...]:
    return tuple(p.key for p in INTERNAL if p.dept == dept)
