"""Fresh newswire sentences with gold entity links, for issue 13's third round (news text).

Written by the kgground authors *before* any result of the linker on them was looked at
and committed before the first measurement (see bench/HISTORY.md, "Issue 13, third
round"): AP-style datelines ("BOSTON (AP) —"), "City, ST" and "City, Calif." addresses and
postal codes, a city standing for its team in sports reports, persons named by first and
last name beside longer namesakes, single-name stars, lower-case technical nouns, and
ordinary mentions. Every gold QID was checked against the slice mirror's labels when the
set was written; a mention the mirror cannot link (its gold absent) is left out of the
in-KB scores by the bench, as for ``bench/data/linking_texts.py``.

Marking as in ``bench/data/linking_texts.py``: ``[[text|QID]]``. Never used to fit or tune.
"""

from __future__ import annotations

from bench.data.linking_texts import parse

FRESH = [
    # datelines
    "[[BOSTON|Q100]] (AP) — [[Massachusetts|Q771]] lawmakers approved a new housing bill "
    "late Thursday.",
    "[[SEATTLE|Q5083]] — [[Amazon.com|Q3884]] said it would hire 2,000 workers at its "
    "downtown offices.",
    "[[ATLANTA|Q23556]] (AP) — Storms knocked out power to thousands of homes across "
    "[[Georgia|Q1428]] on Sunday.",
    "[[WASHINGTON|Q61]] (AP) — [[NASA|Q23548]] delayed the launch by a week, officials "
    "said.",
    "[[PARIS|Q90]] (AP) — Thousands marched through the capital on Saturday.",
    "[[HOUSTON|Q16555]] — Flood waters rose again in eastern [[Texas|Q1439]] overnight.",
    "[[DENVER|Q16554]] (AP) — A wildfire west of the city forced hundreds to leave.",
    # addresses: City, ST / City, Calif. / postcodes
    "The company is based in [[Portland|Q6106]], [[Ore.|Q824]], and employs 300 people.",
    "Researchers at [[Stanford University|Q41506]] in [[Palo Alto|Q47265]], "
    "[[Calif.|Q99]], built the prototype.",
    "The festival returns to [[Athens|Q203263]], [[Ga.|Q1428]], in October.",
    "Mail your ballot to P.O. Box 1200, [[Springfield|Q28515]], [[IL|Q1204]] 62701.",
    "The plant near [[Columbus|Q16567]], [[Ohio|Q1397]], will close next year.",
    "Send comments to One Microsoft Way, [[Redmond|Q223718]], [[WA|Q1223]] 98052.",
    "The startup moved from [[Menlo Park|Q74195]], [[CA|Q99]] to [[Austin|Q16559]], "
    "[[TX|Q1439]] in 2021.",
    "She grew up in [[Paris|Q3181341]], [[Ky.|Q1603]], a small town north of "
    "[[Lexington|Q49241]].",
    "A jury in [[New Haven|Q49145]], [[Conn.|Q779]], returned its verdict on Friday.",
    "The lab at 14850 Campus Road, [[Ithaca|Q217346]], [[NY|Q1384]] will reopen.",
    "[[Berkeley|Q484678]], [[Calif.|Q99]], banned gas stoves in new buildings.",
    # a city for its team
    "[[Boston|Q213959]] beat [[New York|Q213417]] 6-2 at Fenway Park as the pitcher "
    "struck out nine.",
    "[[Baltimore|Q650816]] swept the doubleheader and moved into first place in the "
    "division.",
    "[[Denver|Q223507]] scored two late touchdowns to beat [[Pittsburgh|Q191477]] in "
    "overtime.",
    "[[Seattle|Q1357111]] won the women's soccer match 2-1 on a stoppage-time goal.",
    "The former [[Cleveland|Q642553]] star hit 40 home runs in his best season.",
    # persons: first and last name, longer namesakes, single names
    "[[Andrew Johnson|Q8612]] became president after the assassination in 1865.",
    "[[Andrew Jackson|Q11817]] won the election of 1828; [[Jackson|Q11817]] later "
    "vetoed the bank charter.",
    "[[Michael Jackson|Q2831]] sold more albums than any other singer of the decade.",
    "[[Theodore Roosevelt|Q33866]] led the charge up the hill in 1898.",
    "[[Adele|Q23215]] and [[Cher|Q12003]] were honoured at the music awards.",
    "[[Elvis|Q303]] recorded the song in [[Memphis|Q16563]] in 1954.",
    "[[Bob Dylan|Q392]] and [[Bruce Springsteen|Q1225]] shared the stage for one song.",
    "[[Michael Jordan|Q41421]] and [[LeBron James|Q36159]] are often compared.",
    "[[Babe Ruth|Q213812]] hit his 60th home run for the [[Yankees|Q213417]] in 1927.",
    # lower-case technical nouns in cased text
    "Engineers at [[Bell Labs|Q217365]] demonstrated the first [[transistor|Q188946]] in "
    "1947.",
    "The battery maker will buy [[lithium|Q568]] from mines in [[Chile|Q298]].",
    "Iran enriched [[uranium|Q1098]] to 60 percent, inspectors said.",
    "A sheet of [[graphene|Q169917]] is one atom thick.",
    "[[Intel|Q248]] showed a new [[microprocessor|Q5297]] at the fair in "
    "[[Taipei|Q1867]].",
    "The [[nuclear reactor|Q80877]] near [[Kiev|Q1899]] was shut down in 2000.",
    # ordinary mentions
    "[[IBM|Q37156]] and [[Nvidia|Q182477]] shares fell in [[New York|Q60]] on Monday.",
    "The [[FBI|Q8333]] searched offices in [[Miami|Q8652]] and [[Dallas|Q16557]].",
    "Leaders met in [[Moscow|Q649]] and [[London|Q84]] to discuss the ceasefire.",
    "[[Manchester United|Q18656]] beat [[Real Madrid|Q8682]] in a friendly in "
    "[[Chicago|Q1297]].",
]


def texts() -> list[tuple[str, list[tuple[int, int, str]]]]:
    return [parse(t) for t in FRESH]
