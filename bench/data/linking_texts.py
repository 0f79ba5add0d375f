"""News sentences and science sentences with gold entity links, written by the kgground
authors for issue 13 (news style: datelines, "City, ST" addresses, postcodes, a city for
its team, surnames after full names, single-name stars; science style: lower-case
concepts, chemicals, organisms, instruments). Mentions are marked ``[[text|QID]]``.

Not used to fit or tune anything: the linker's weights and its confidence model were
fitted on other data (``bench/fit_calibration.py``). Gold QIDs the mirror does not hold
are reported and left out of the in-KB scores.
"""

from __future__ import annotations

import re

NEWS = [
    "[[WASHINGTON|Q61]] — [[Joe Biden|Q6279]] met [[Emmanuel Macron|Q3052772]] at the "
    "White House on Tuesday to discuss [[Ukraine|Q212]].",
    "Students at [[Harvard University|Q13371]] in [[Cambridge, Mass.|Q49111]], walked out "
    "of classes on Friday.",
    "The lab moved to 9500 Gilman Drive, [[La Jolla|Q1785838]], [[CA|Q99]] 92093 last year.",
    "Police in [[Tampa|Q49255]], [[FL|Q812]] arrested two men after the robbery.",
    "[[Angela Merkel|Q567]] said [[Germany|Q183]] would support the [[European Union|Q458]] "
    "plan.",
    "[[Vladimir Putin|Q7747]] spoke by phone with leaders in [[Beijing|Q956]] and "
    "[[New Delhi|Q987]].",
    "[[Madonna|Q1744]] will open her world tour in [[London|Q84]] in May.",
    "[[Lady Gaga|Q19848]] and [[Taylor Swift|Q26876]] led the nominations this year.",
    "[[John Adams|Q11806]] served as the second president; [[Adams|Q11806]] was born in "
    "Braintree.",
    "[[Lionel Messi|Q615]] scored twice as [[Argentina|Q414]] beat [[Brazil|Q155]] in "
    "[[Rio de Janeiro|Q8678]].",
    "[[Serena Williams|Q11459]] announced her retirement after the [[US Open|Q123577]].",
    "Shares of [[Apple|Q312]] and [[Microsoft|Q2283]] rose in [[New York|Q60]] trading.",
    "[[Google|Q95]] opened a new office in [[Zurich|Q72]], [[Switzerland|Q39]].",
    "The [[United Nations|Q1065]] warned of famine in [[Yemen|Q805]] and [[Somalia|Q1045]].",
    "Flights from [[Delta Air Lines|Q188920]] to [[Tokyo|Q1490]] resume next month.",
    "[[NATO|Q7184]] ministers met in [[Brussels|Q239]] on Thursday.",
    "An earthquake struck near [[Istanbul|Q406]], [[Turkey|Q43]], early on Monday.",
    "[[Barack Obama|Q76]] campaigned in [[Chicago|Q1297]] and [[Detroit|Q12439]].",
    "The governor of [[Texas|Q1439]] visited flooded towns near [[Houston|Q16555]].",
    "[[Elon Musk|Q317521]] said [[Tesla|Q478214]] would build a factory near "
    "[[Berlin|Q64]].",
    "Fans in [[Seattle|Q5083]] cheered as the [[Seahawks|Q221878]] won again.",
    "The [[Baltimore Orioles|Q650816]] traded their pitcher to [[Boston|Q213959]] on "
    "Sunday.",
    "[[Nelson Mandela|Q8023]] was honoured in [[Johannesburg|Q34647]] and "
    "[[Cape Town|Q5465]].",
    "[[Pope Francis|Q450675]] celebrated Mass in [[Rome|Q220]] before travelling to "
    "[[Portugal|Q45]].",
    "Rescue teams reached villages in [[Nepal|Q837]] near [[Mount Everest|Q513]].",
    "[[Boris Johnson|Q180589]] resigned as [[United Kingdom|Q145]] prime minister.",
    "[[Toronto|Q172]] and [[Montreal|Q340]] saw record snowfall, [[Environment Canada|"
    "Q1348063]] said.",
    "The [[World Health Organization|Q7817]] said [[influenza|Q2840]] cases were rising "
    "in [[Australia|Q408]].",
    "[[Paul McCartney|Q2599]] played [[Liverpool|Q24826]] for the first time in a decade.",
    "Protesters gathered in [[Paris|Q90]] and [[Lyon|Q456]] against the pension reform.",
    "[[Roger Federer|Q1426]] beat [[Rafael Nadal|Q10132]] at [[Wimbledon|Q41520]].",
    "The museum in [[Amsterdam|Q727]] reopened its [[Vincent van Gogh|Q5582]] rooms.",
]

SCIENCE = [
    "[[Photosynthesis|Q11982]] converts [[carbon dioxide|Q1997]] and [[water|Q283]] into "
    "sugars in the [[chloroplast|Q47790]].",
    "The [[mitochondrion|Q39572]] produces most of the cell's [[adenosine triphosphate|"
    "Q80863]].",
    "[[Insulin|Q7240673]] regulates [[glucose|Q37525]] uptake; its absence causes "
    "[[diabetes mellitus|Q12206]].",
    "[[Penicillin|Q12190]] kills many [[bacteria|Q10876]] but not [[viruses|Q808]].",
    "Samples of [[glycine|Q620730]] were found on the comet.",
    "[[Tuberculosis|Q12204]] remains a leading cause of death in [[India|Q668]].",
    "[[Electrons|Q2225]] and [[protons|Q2294]] carry opposite charges; [[neutrons|Q2348]] "
    "carry none.",
    "[[Albert Einstein|Q937]] published [[general relativity|Q11452]] in 1915.",
    "A [[black hole|Q589]] lies at the centre of the [[Milky Way|Q321]].",
    "The [[Hubble Space Telescope|Q2513]] observed a [[comet|Q3559]] passing "
    "[[Jupiter|Q319]].",
    "[[Mars|Q111]] has two moons, while [[Earth|Q2]] has one.",
    "[[Methane|Q37129]] is a stronger [[greenhouse gas|Q167336]] than carbon dioxide.",
    "[[Glaciers|Q35666]] in [[Antarctica|Q51]] are losing mass faster than expected.",
    "The [[Nile|Q3392]] and the [[Amazon River|Q3783]] are the longest rivers.",
    "[[Marie Curie|Q7186]] discovered [[polonium|Q979]] and [[radium|Q1128]].",
    "[[Charles Darwin|Q1035]] described [[natural selection|Q43478]] in 1859.",
    "The [[hydrogen|Q556]] atom has one electron; [[helium|Q560]] has two.",
    "[[Malaria|Q12156]] is spread by [[mosquitoes|Q7367]] in tropical regions.",
    "[[Isaac Newton|Q935]] described [[gravity|Q11412]] in the Principia.",
    "[[Volcanoes|Q8072]] in [[Iceland|Q189]] erupted twice this decade.",
    "The [[International Space Station|Q25271]] orbits [[Earth|Q2]] every 90 minutes.",
    "[[DNA|Q7430]] stores genetic information; [[proteins|Q8054]] carry out most cell "
    "functions.",
    "[[Oxygen|Q629]] makes up about a fifth of the air; [[nitrogen|Q627]] most of the rest.",
    "The [[Sahara|Q6583]] expanded after the last [[ice age|Q49367]].",
    "[[Quantum mechanics|Q944]] explains the spectrum of [[hydrogen|Q556]].",
]

_MARK = re.compile(r"\[\[([^|\]]+)\|(Q[0-9]+)\]\]")


def parse(marked: str) -> tuple[str, list[tuple[int, int, str]]]:
    """The plain text of a marked sentence and its (start, end, QID) mentions."""
    out, spans, at = [], [], 0
    pos = 0
    for m in _MARK.finditer(marked):
        out.append(marked[at:m.start()])
        pos += m.start() - at
        spans.append((pos, pos + len(m.group(1)), m.group(2)))
        out.append(m.group(1))
        pos += len(m.group(1))
        at = m.end()
    out.append(marked[at:])
    return "".join(out), spans


def texts(kind: str) -> list[tuple[str, list[tuple[int, int, str]]]]:
    return [parse(t) for t in {"news": NEWS, "science": SCIENCE}[kind]]
