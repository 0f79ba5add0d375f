"""Build the bundled demo knowledge base ``nobel-demo.json``.

What this is
    A small, self-contained slice of Wikidata about Nobel laureates in physics
    and chemistry: the laureates, some of their teachers, the cities they were
    born and died in, the countries, the universities and institutes where they
    studied and worked, the awards, and their fields of work, linked into one
    graph (doctoral advisor/student chains such as Sommerfeld -> Heisenberg ->
    Teller, parents and children, shared employers).  It is written in the
    Wikidata JSON dump format ("[" / one entity per line / "]") so that the
    ordinary dump ingestion of the ``store`` package loads it, and demos and
    tests run without any download.

Where the facts come from
    Every fact in the tables below was written by the kgground authors from
    general knowledge; no statement was copied from Wikidata.  The Wikidata IDs
    (Q…/P…) are the real ones: item IDs were checked against a real Wikidata
    slice where it has them, and the few others against public references.  We
    kept only facts we are confident are true and left out anything doubtful
    (a missing birthplace is better than a wrong one), so the data is
    deliberately incomplete: a missing statement means "not in the demo",
    never "false".

    English labels are Wikidata's own. (The T-REx test slice the project's tests use
    carries some surface forms instead, e.g. "Physics" for the Nobel Prize in
    Physics; the test that compares the two accepts a shared label or alias.)

How to regenerate
    python store/demo/build_demo.py            # writes store/demo/nobel-demo.json
    python store/demo/build_demo.py --check    # exit 1 if the file is out of date

The output is deterministic: entities are sorted (properties first, then items,
by numeric id), statement ids are UUID-5s of subject, property, value and
qualifiers, and reference/qualifier hashes are SHA-1s of the snak JSON.
Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

# fmt: off
# (the data tables below are laid out by hand for reading; the writer at the end is formatted)
OUT = Path(__file__).with_name("nobel-demo.json")
LANGS = ("en", "de", "fr", "zh")
GREGORIAN = "http://www.wikidata.org/entity/Q1985727"
STATEMENT_NS = uuid.UUID("6f1c2a4e-3d5b-5c7e-9a0b-1c2d3e4f5a6b")  # fixed namespace for statement ids

# Use the English labels of the T-REx test slice where they differ (see docstring).

# ---------------------------------------------------------------------------
# Properties: pid, datatype, labels (en, de, fr, zh), English description,
# English aliases.
# ---------------------------------------------------------------------------
PROPERTIES = [
    ("P17", "wikibase-item", ("country", "Staat", "pays", "国家"),
     "sovereign state of this item", ["sovereign state", "state", "land"]),
    ("P19", "wikibase-item", ("place of birth", "Geburtsort", "lieu de naissance", "出生地"),
     "most specific known place where the subject was born", ["birthplace", "born in", "POB"]),
    ("P20", "wikibase-item", ("place of death", "Sterbeort", "lieu de mort", "逝世地点"),
     "most specific known place where the subject died", ["deathplace", "died in", "POD"]),
    ("P21", "wikibase-item", ("sex or gender", "Geschlecht", "sexe ou genre", "性别"),
     "sex or gender identity of the subject", ["sex", "gender"]),
    ("P22", "wikibase-item", ("father", "Vater", "père", "父亲"),
     "male parent of the subject", ["dad", "parent"]),
    ("P25", "wikibase-item", ("mother", "Mutter", "mère", "母亲"),
     "female parent of the subject", ["mom", "mum", "parent"]),
    ("P26", "wikibase-item", ("spouse", "Ehepartner", "conjoint ou conjointe", "配偶"),
     "the subject has the object as their spouse", ["husband", "wife", "married to"]),
    ("P27", "wikibase-item", ("country of citizenship", "Staatsangehörigkeit", "pays de nationalité", "国籍"),
     "country that recognizes the subject as its citizen", ["citizenship", "nationality", "citizen of"]),
    ("P31", "wikibase-item", ("instance of", "ist ein(e)", "nature de l'élément", "隶属于"),
     "class of which this subject is a particular example", ["is a", "is an", "type"]),
    ("P36", "wikibase-item", ("capital", "Hauptstadt", "capitale", "首都"),
     "seat of government of a country or other administrative territorial entity", ["capital city"]),
    ("P40", "wikibase-item", ("child", "Kind", "enfant", "子女"),
     "subject has the object as their offspring", ["son", "daughter", "children"]),
    ("P69", "wikibase-item", ("educated at", "besuchte Bildungseinrichtung", "scolarité", "就读学校"),
     "educational institution attended by the subject", ["alma mater", "studied at", "university attended"]),
    ("P101", "wikibase-item", ("field of work", "Fachgebiet", "domaine d'activité", "工作领域"),
     "specialization of a person or organization", ["field", "research field", "area of work"]),
    ("P106", "wikibase-item", ("occupation", "Tätigkeit", "occupation", "职业"),
     "occupation of a person", ["profession", "job", "work"]),
    ("P108", "wikibase-item", ("employer", "Arbeitgeber", "employeur", "雇主"),
     "organization for which the subject works or worked", ["worked at", "employed by", "workplace"]),
    ("P131", "wikibase-item", ("located in the administrative territorial entity",
                               "liegt in der Verwaltungseinheit", "localisation administrative", "所在行政领土实体"),
     "administrative territorial entity in which the item is located", ["located in", "city", "in"]),
    ("P138", "wikibase-item", ("named after", "benannt nach", "nommé en référence à", "命名来源"),
     "entity that inspired the subject's name", ["eponym", "named for"]),
    ("P166", "wikibase-item", ("award received", "Auszeichnung", "distinction reçue", "所获奖项"),
     "award or recognition received by the subject", ["award", "prize received", "honours", "won"]),
    ("P184", "wikibase-item", ("doctoral advisor", "Doktorvater", "directeur de thèse", "博士导师"),
     "person who supervised the doctorate or PhD thesis of the subject", ["PhD advisor", "doctoral supervisor", "supervisor"]),
    ("P185", "wikibase-item", ("doctoral student", "Doktorand", "étudiant de thèse", "博士生"),
     "doctoral student of a professor", ["PhD student", "student"]),
    ("P279", "wikibase-item", ("subclass of", "Unterklasse von", "sous-classe de", "上級分類"),
     "all instances of these items are instances of those items", ["is a subtype of", "subtype of"]),
    ("P361", "wikibase-item", ("part of", "Teil von", "partie de", "属于"),
     "object of which the subject is a part", ["component of", "member of (part)"]),
    ("P463", "wikibase-item", ("member of", "Mitglied von", "membre de", "所属组织"),
     "organization or club to which the subject belongs", ["member", "fellow of"]),
    ("P569", "time", ("date of birth", "Geburtsdatum", "date de naissance", "出生日期"),
     "date on which the subject was born", ["born", "birth date", "DOB"]),
    ("P570", "time", ("date of death", "Sterbedatum", "date de mort", "逝世日期"),
     "date on which the subject died", ["died", "death date", "DOD"]),
    ("P571", "time", ("inception", "Gründung, Erstellung bzw. Entstehung", "date de fondation ou de création", "成立或建立时间"),
     "date when the organization or object was founded or created", ["founded", "established", "founding date"]),
    ("P580", "time", ("start time", "Startzeitpunkt", "date de début", "开始时间"),
     "time a statement starts being valid", ["from", "since", "began"]),
    ("P582", "time", ("end time", "Endzeitpunkt", "date de fin", "结束时间"),
     "time a statement stops being valid", ["until", "to", "ended"]),
    ("P585", "time", ("point in time", "Zeitpunkt", "date", "时间点"),
     "time and date something took place or a statement was true", ["date", "year", "when"]),
    ("P854", "url", ("reference URL", "URL der Fundstelle", "URL de la référence", "参考文献网址"),
     "internet address used as a reference", ["URL", "source URL"]),
    ("P856", "url", ("official website", "offizielle Website", "site officiel", "官方网站"),
     "URL of the official website of the item", ["website", "homepage", "web site"]),
    ("P1027", "wikibase-item", ("conferred by", "verliehen durch", "décerné par", "授予者"),
     "person or organization that awards the prize or honour", ["awarded by", "presented by"]),
    ("P1448", "monolingualtext", ("official name", "offizieller Name", "nom officiel", "官方名称"),
     "official name of the subject in its official language(s)", ["formal name", "long name"]),
    ("P1559", "monolingualtext", ("name in native language", "Name in Amts- oder Originalsprache",
                                  "nom dans la langue maternelle", "母语名称"),
     "name of a person in their native language", ["native name", "original name"]),
    ("P1971", "quantity", ("number of children", "Anzahl der Kinder", "nombre d'enfants", "子女数目"),
     "number of children of the person", ["children count"]),
]

# German, French and Chinese descriptions of the properties (English ones are above).
PROPERTY_DESCRIPTIONS = {
    "P17": ("Staat, in dem sich das Objekt befindet", "pays dans lequel se situe l'élément", "该项目所在的国家"),
    "P19": ("Ort, an dem die Person geboren wurde", "lieu où la personne est née", "人物出生的地点"),
    "P20": ("Ort, an dem die Person gestorben ist", "lieu où la personne est morte", "人物逝世的地点"),
    "P21": ("Geschlecht der Person", "sexe ou genre de la personne", "人物的性别"),
    "P22": ("männlicher Elternteil", "parent masculin", "男性父母"),
    "P25": ("weiblicher Elternteil", "parent féminin", "女性父母"),
    "P26": ("Ehepartner der Person", "conjoint de la personne", "人物的配偶"),
    "P27": ("Staat, dessen Staatsbürger die Person ist", "pays dont la personne a la nationalité", "承认该人物为其公民的国家"),
    "P31": ("Klasse, von der das Objekt eine Instanz ist", "classe dont l'élément est une instance", "该项目是其实例的类别"),
    "P36": ("Regierungssitz eines Staates oder einer Verwaltungseinheit", "siège du gouvernement d'un pays", "国家或行政区的首府"),
    "P40": ("Nachkomme der Person", "descendant direct de la personne", "人物的子女"),
    "P69": ("Bildungseinrichtung, die die Person besucht hat", "établissement fréquenté par la personne", "人物就读过的教育机构"),
    "P101": ("Spezialgebiet einer Person oder Organisation", "spécialité d'une personne ou d'une organisation", "人物或组织的专业领域"),
    "P106": ("Tätigkeit oder Beruf einer Person", "occupation d'une personne", "人物的职业"),
    "P108": ("Organisation, für die die Person arbeitet oder arbeitete", "organisation pour laquelle la personne travaille ou a travaillé", "人物工作过的组织"),
    "P131": ("Verwaltungseinheit, in der das Objekt liegt", "entité administrative où se trouve l'élément", "该项目所在的行政区"),
    "P138": ("Namensgeber des Objekts", "ce qui a inspiré le nom de l'élément", "该项目名称的来源"),
    "P166": ("Auszeichnung, die die Person erhalten hat", "prix ou distinction reçu", "获得的奖项或荣誉"),
    "P184": ("Betreuer der Doktorarbeit", "personne ayant dirigé la thèse de doctorat", "指导博士论文的人"),
    "P185": ("Doktorand eines Professors", "doctorant d'un professeur", "教授指导的博士生"),
    "P279": ("alle Instanzen dieser Klasse sind Instanzen jener Klasse", "toutes les instances de cette classe sont des instances de celle-là", "此项的上级分类"),
    "P361": ("Ganzes, von dem das Objekt ein Teil ist", "ensemble dont l'élément fait partie", "该项目所属的整体"),
    "P463": ("Organisation, der die Person angehört", "organisation dont le sujet est membre", "该项目所属的组织"),
    "P569": ("Datum, an dem die Person geboren wurde", "date à laquelle la personne est née", "人物出生的日期"),
    "P570": ("Datum, an dem die Person gestorben ist", "date à laquelle la personne est morte", "人物逝世的日期"),
    "P571": ("Datum der Gründung oder Entstehung", "date de fondation ou de création", "组织或事物成立的日期"),
    "P580": ("Zeitpunkt, ab dem die Aussage gilt", "moment où la déclaration commence à être valable", "陈述开始有效的时间"),
    "P582": ("Zeitpunkt, bis zu dem die Aussage gilt", "moment où la déclaration cesse d'être valable", "陈述停止有效的时间"),
    "P585": ("Zeitpunkt, zu dem etwas stattfand oder galt", "moment où un événement a eu lieu", "事件发生或陈述成立的时间"),
    "P854": ("Internetadresse als Beleg", "adresse internet utilisée comme référence", "作为参考来源的网址"),
    "P856": ("Adresse der offiziellen Website", "adresse du site web officiel", "官方网站的网址"),
    "P1027": ("Person oder Organisation, die die Auszeichnung verleiht", "personne ou organisation qui décerne le prix", "颁发奖项的人或组织"),
    "P1448": ("offizieller Name in der Amtssprache", "nom officiel dans la langue officielle", "官方语言中的正式名称"),
    "P1559": ("Name der Person in ihrer Muttersprache", "nom de la personne dans sa langue maternelle", "人物在其母语中的名称"),
    "P1971": ("Anzahl der Kinder der Person", "nombre d'enfants de la personne", "人物的子女数目"),
}

# ---------------------------------------------------------------------------
# Classes and other concept items: key, qid, (en, de, fr, zh), description,
# claims as (property, key) pairs, enwiki title or None.
# ---------------------------------------------------------------------------
CLASSES = [
    ("human", "Q5", ("human", "Mensch", "être humain", "人类"), "any member of Homo sapiens", [], "Human"),
    ("male", "Q6581097", ("male", "männlich", "masculin", "男"), "to be used in sex or gender (P21)", [], None),
    ("female", "Q6581072", ("female", "weiblich", "féminin", "女"), "to be used in sex or gender (P21)", [], None),
    ("city", "Q515", ("city", "Stadt", "ville", "城市"), "large human settlement", [], "City"),
    ("capital", "Q5119", ("capital", "Hauptstadt", "capitale", "首都"),
     "seat of government of a country or subdivision", [("P279", "city")], "Capital city"),
    ("country", "Q6256", ("country", "Staat", "pays", "国家"), "distinct territorial body or political entity", [], "Country"),
    ("university", "Q3918", ("university", "Universität", "université", "大学"),
     "institution of higher education and research", [], "University"),
    ("cam_college", "Q1055028", ("college of the University of Cambridge", "College der Universität Cambridge",
                                 "collège de l'université de Cambridge", "剑桥大学学院"),
     "constituent college of the University of Cambridge", [], "Colleges of the University of Cambridge"),
    ("research_institute", "Q31855", ("research institute", "Forschungsinstitut", "institut de recherche", "研究所"),
     "organization whose primary purpose is research", [("P279", "organization")], "Research institute"),
    ("organization", "Q43229", ("organization", "Organisation", "organisation", "组织"),
     "social entity established to meet needs or pursue goals", [], "Organization"),
    ("intl_org", "Q484652", ("international organization", "internationale Organisation",
                             "organisation internationale", "国际组织"),
     "organization with international membership or scope", [("P279", "organization")], "International organization"),
    ("business", "Q4830453", ("business", "Unternehmen", "entreprise", "企业"),
     "organization undertaking commercial activity", [("P279", "organization")], "Business"),
    ("award", "Q618779", ("award", "Auszeichnung", "distinction", "奖项"),
     "something given in recognition of an achievement", [], "Award"),
    ("profession", "Q28640", ("profession", "Beruf", "profession", "专业"),
     "vocation founded upon specialized training", [("P279", "occupation")], "Profession"),
    ("occupation", "Q12737077", ("occupation", "Tätigkeit", "occupation", "职业"),
     "label applied to a person based on an activity they participate in", [], None),
    ("branch_of_science", "Q2465832", ("branch of science", "Teilgebiet der Wissenschaft", "branche de la science", "科学分支"),
     "field or discipline of science", [], None),
    ("physical_science", "Q14632398", ("physical science", "Naturwissenschaft der unbelebten Natur",
                                       "sciences physiques", "物理科学"),
     "branch of natural science that studies non-living systems", [("P31", "branch_of_science")], "Physical science"),
    ("branch_of_physics", "Q4162444", ("branch of physics", "Teilgebiet der Physik", "branche de la physique", "物理学分支"),
     "field of study within physics", [("P279", "branch_of_science"), ("P361", "physics")], None),
]

# Occupations: key, qid, labels, description, subclass-of key.
OCCUPATIONS = [
    ("scientist", "Q901", ("scientist", "Wissenschaftler", "scientifique", "科学家"), "person who engages in scientific research", None, "Scientist"),
    ("physicist", "Q169470", ("physicist", "Physiker", "physicien", "物理学家"), "scientist who does research in physics", "scientist", "Physicist"),
    ("chemist", "Q593644", ("chemist", "Chemiker", "chimiste", "化学家"), "scientist trained in the study of chemistry", "scientist", "Chemist"),
    ("biochemist", "Q2919046", ("biochemist", "Biochemiker", "biochimiste", "生物化学家"), "scientist who studies biochemistry", "scientist", "Biochemist"),
    ("engineer", "Q81096", ("engineer", "Ingenieur", "ingénieur", "工程师"), "professional who applies science to practical problems", None, "Engineer"),
    ("inventor", "Q205375", ("inventor", "Erfinder", "inventeur", "发明家"), "person who creates new inventions", None, "Inventor"),
]

# Fields of work: key, qid, labels, description, claims, enwiki.
FIELDS = [
    ("physics", "Q413", ("physics", "Physik", "physique", "物理学"), "natural science that studies matter, energy and their interactions",
     [("P31", "branch_of_science"), ("P279", "physical_science")], "Physics"),
    ("chemistry", "Q2329", ("chemistry", "Chemie", "chimie", "化学"), "natural science that studies the composition and properties of matter",
     [("P31", "branch_of_science"), ("P279", "physical_science")], "Chemistry"),
    ("quantum_mechanics", "Q944", ("quantum mechanics", "Quantenmechanik", "mécanique quantique", "量子力学"),
     "theory describing physics at the scale of atoms and subatomic particles", [("P31", "branch_of_physics")], "Quantum mechanics"),
    ("qft", "Q54505", ("quantum field theory", "Quantenfeldtheorie", "théorie quantique des champs", "量子场论"),
     "theoretical framework combining quantum mechanics and special relativity", [("P31", "branch_of_physics")], "Quantum field theory"),
    ("qed", "Q234881", ("quantum electrodynamics", "Quantenelektrodynamik", "électrodynamique quantique", "量子电动力学"),
     "quantum field theory of the electromagnetic interaction", [("P279", "qft")], "Quantum electrodynamics"),
    ("particle_physics", "Q18334", ("particle physics", "Teilchenphysik", "physique des particules", "粒子物理学"),
     "branch of physics studying elementary particles", [("P31", "branch_of_physics")], "Particle physics"),
    ("condensed_matter", "Q214781", ("condensed matter physics", "Physik der kondensierten Materie",
                                     "physique de la matière condensée", "凝聚态物理学"),
     "branch of physics studying condensed phases of matter", [("P31", "branch_of_physics")], "Condensed matter physics"),
    ("astrophysics", "Q37547", ("astrophysics", "Astrophysik", "astrophysique", "天体物理学"),
     "branch of astronomy applying physics to celestial objects", [("P31", "branch_of_science")], "Astrophysics"),
    ("radioactivity", "Q11448", ("radioactive decay", "Radioaktivität", "radioactivité", "放射性"),
     "emission of ionizing radiation by unstable atomic nuclei", [("P31", "branch_of_physics")], "Radioactive decay"),
    ("organic_chemistry", "Q11351", ("organic chemistry", "organische Chemie", "chimie organique", "有机化学"),
     "chemistry of carbon compounds", [("P279", "chemistry")], "Organic chemistry"),
    ("physical_chemistry", "Q11372", ("physical chemistry", "physikalische Chemie", "chimie physique", "物理化学"),
     "study of chemical systems in terms of physics", [("P279", "chemistry")], "Physical chemistry"),
    ("quantum_chemistry", "Q188403", ("quantum chemistry", "Quantenchemie", "chimie quantique", "量子化学"),
     "application of quantum mechanics to chemical systems", [("P279", "physical_chemistry")], "Quantum chemistry"),
    ("biochemistry", "Q7094", ("biochemistry", "Biochemie", "biochimie", "生物化学"),
     "study of chemical processes in living organisms", [("P279", "chemistry")], "Biochemistry"),
    ("physiology", "Q521", ("physiology", "Physiologie", "physiologie", "生理学"),
     "science of the functions of living systems", [("P31", "branch_of_science")], "Physiology"),
]

# ---------------------------------------------------------------------------
# Countries: key, qid, labels, description, capital key, official names
# [(text, language)], enwiki.
# ---------------------------------------------------------------------------
COUNTRIES = [
    ("germany", "Q183", ("Germany", "Deutschland", "Allemagne", "德国"), "country in Central Europe", "berlin",
     [("Bundesrepublik Deutschland", "de")], "Germany"),
    ("france", "Q142", ("France", "Frankreich", "France", "法国"), "country in Western Europe", "paris",
     [("République française", "fr")], "France"),
    ("uk", "Q145", ("United Kingdom", "Vereinigtes Königreich", "Royaume-Uni", "英国"), "country in north-west Europe", "london",
     [("United Kingdom of Great Britain and Northern Ireland", "en")], "United Kingdom"),
    ("usa", "Q30", ("United States", "Vereinigte Staaten", "États-Unis", "美国"), "country in North America", "washington",
     [("United States of America", "en")], "United States"),
    ("netherlands", "Q55", ("Netherlands", "Niederlande", "Pays-Bas", "荷兰"), "country in north-western Europe", "amsterdam",
     [], "Netherlands"),
    ("austria", "Q40", ("Austria", "Österreich", "Autriche", "奥地利"), "country in Central Europe", "vienna",
     [("Republik Österreich", "de")], "Austria"),
    ("switzerland", "Q39", ("Switzerland", "Schweiz", "Suisse", "瑞士"), "country in Central Europe", "bern",
     [("Schweizerische Eidgenossenschaft", "de"), ("Confédération suisse", "fr")], "Switzerland"),
    ("italy", "Q38", ("Italy", "Italien", "Italie", "意大利"), "country in Southern Europe", "rome",
     [("Repubblica Italiana", "it")], "Italy"),
    ("sweden", "Q34", ("Sweden", "Schweden", "Suède", "瑞典"), "country in Northern Europe", "stockholm",
     [("Konungariket Sverige", "sv")], "Sweden"),
    ("denmark", "Q35", ("Denmark", "Dänemark", "Danemark", "丹麦"), "country in Northern Europe", "copenhagen",
     [("Kongeriget Danmark", "da")], "Denmark"),
    ("soviet_union", "Q15180", ("Soviet Union", "Sowjetunion", "Union soviétique", "苏联"),
     "federal socialist state in Eurasia (1922–1991)", "moscow", [], "Soviet Union"),
    ("russia", "Q159", ("Russia", "Russland", "Russie", "俄罗斯"), "country in Eastern Europe and North Asia", "moscow",
     [("Российская Федерация", "ru")], "Russia"),
    ("japan", "Q17", ("Japan", "Japan", "Japon", "日本"), "island country in East Asia", "tokyo",
     [("日本国", "ja")], "Japan"),
    ("hungary", "Q28", ("Hungary", "Ungarn", "Hongrie", "匈牙利"), "country in Central Europe", "budapest",
     [("Magyarország", "hu")], "Hungary"),
    ("poland", "Q36", ("Poland", "Polen", "Pologne", "波兰"), "country in Central Europe", "warsaw",
     [("Rzeczpospolita Polska", "pl")], "Poland"),
    ("belgium", "Q31", ("Belgium", "Belgien", "Belgique", "比利时"), "country in Western Europe", "brussels",
     [], "Belgium"),
    ("egypt", "Q79", ("Egypt", "Ägypten", "Égypte", "埃及"), "country in North Africa and Western Asia", "cairo",
     [], "Egypt"),
    ("israel", "Q801", ("Israel", "Israel", "Israël", "以色列"), "country in Western Asia", "jerusalem",
     [], "Israel"),
    ("pakistan", "Q843", ("Pakistan", "Pakistan", "Pakistan", "巴基斯坦"), "country in South Asia", "islamabad",
     [], "Pakistan"),
    ("india", "Q668", ("India", "Indien", "Inde", "印度"), "country in South Asia", "new_delhi",
     [], "India"),
    ("australia", "Q408", ("Australia", "Australien", "Australie", "澳大利亚"), "country in Oceania", "canberra",
     [], "Australia"),
    ("canada", "Q16", ("Canada", "Kanada", "Canada", "加拿大"), "country in North America", "ottawa",
     [], "Canada"),
    ("new_zealand", "Q664", ("New Zealand", "Neuseeland", "Nouvelle-Zélande", "新西兰"), "island country in Oceania", "wellington",
     [], "New Zealand"),
    ("slovakia", "Q214", ("Slovakia", "Slowakei", "Slovaquie", "斯洛伐克"), "country in Central Europe", "bratislava",
     [("Slovenská republika", "sk")], "Slovakia"),
    ("slovenia", "Q215", ("Slovenia", "Slowenien", "Slovénie", "斯洛文尼亚"), "country in Central Europe", "ljubljana",
     [("Republika Slovenija", "sl")], "Slovenia"),
    ("azerbaijan", "Q227", ("Azerbaijan", "Aserbaidschan", "Azerbaïdjan", "阿塞拜疆"), "country in the South Caucasus", "baku",
     [], "Azerbaijan"),
]

# Germany's capital history, in Wikidata style: Berlin is the current capital
# (preferred rank), Bonn the former one (normal rank, with start and end time).
GERMANY_CAPITALS = [
    ("berlin", "preferred", "1990-10-03", None),
    ("bonn", "normal", "1949-11-29", "1990-10-02"),
]

# ---------------------------------------------------------------------------
# Cities: key, qid, labels (en, de, fr, zh), country key (None: historical),
# description, enwiki title or None.  Capitals get "capital" as well as "city".
# ---------------------------------------------------------------------------
CITIES = [
    # Germany
    ("berlin", "Q64", ("Berlin", "Berlin", "Berlin", "柏林"), "germany", "capital and largest city of Germany", "Berlin"),
    ("bonn", "Q586", ("Bonn", "Bonn", "Bonn", "波恩"), "germany", "city in North Rhine-Westphalia, Germany, former capital", "Bonn"),
    ("munich", "Q1726", ("Munich", "München", "Munich", "慕尼黑"), "germany", "capital of Bavaria, Germany", "Munich"),
    ("ulm", "Q3012", ("Ulm", "Ulm", "Ulm", "乌尔姆"), "germany", "city in Baden-Württemberg, Germany", "Ulm"),
    ("kiel", "Q1707", ("Kiel", "Kiel", "Kiel", "基尔"), "germany", "capital of Schleswig-Holstein, Germany", "Kiel"),
    ("goettingen", "Q3033", ("Göttingen", "Göttingen", "Göttingen", "哥廷根"), "germany", "university city in Lower Saxony, Germany", "Göttingen"),
    ("hamburg", "Q1055", ("Hamburg", "Hamburg", "Hambourg", "汉堡"), "germany", "city-state and port in northern Germany", "Hamburg"),
    ("frankfurt", "Q1794", ("Frankfurt am Main", "Frankfurt am Main", "Francfort-sur-le-Main", "美因河畔法兰克福"), "germany", "city in Hesse, Germany", "Frankfurt"),
    ("heidelberg", "Q2966", ("Heidelberg", "Heidelberg", "Heidelberg", "海德堡"), "germany", "university city in Baden-Württemberg, Germany", "Heidelberg"),
    ("wuerzburg", "Q2999", ("Würzburg", "Würzburg", "Wurtzbourg", "维尔茨堡"), "germany", "city in Bavaria, Germany", "Würzburg"),
    ("leipzig", "Q2079", ("Leipzig", "Leipzig", "Leipzig", "莱比锡"), "germany", "city in Saxony, Germany", "Leipzig"),
    ("giessen", "Q3874", ("Gießen", "Gießen", "Giessen", "吉森"), "germany", "university city in Hesse, Germany", "Giessen"),
    ("potsdam", "Q1711", ("Potsdam", "Potsdam", "Potsdam", "波茨坦"), "germany", "capital of Brandenburg, Germany", "Potsdam"),
    ("cologne", "Q365", ("Cologne", "Köln", "Cologne", "科隆"), "germany", "city on the Rhine in North Rhine-Westphalia, Germany", "Cologne"),
    ("stuttgart", "Q1022", ("Stuttgart", "Stuttgart", "Stuttgart", "斯图加特"), "germany", "capital of Baden-Württemberg, Germany", "Stuttgart"),
    ("freiburg", "Q2833", ("Freiburg im Breisgau", "Freiburg im Breisgau", "Fribourg-en-Brisgau", "弗赖堡"), "germany", "university city in Baden-Württemberg, Germany", "Freiburg im Breisgau"),
    ("worms", "Q3852", ("Worms", "Worms", "Worms", "沃尔姆斯"), "germany", "city in Rhineland-Palatinate, Germany", "Worms, Germany"),
    ("aachen", "Q1017", ("Aachen", "Aachen", "Aix-la-Chapelle", "亚琛"), "germany", "city in North Rhine-Westphalia, Germany", "Aachen"),
    ("marburg", "Q3869", ("Marburg", "Marburg", "Marbourg", "马尔堡"), "germany", "university town in Hesse, Germany", "Marburg"),
    ("halle", "Q2814", ("Halle (Saale)", "Halle (Saale)", "Halle-sur-Saale", "哈勒"), "germany", "city in Saxony-Anhalt, Germany", "Halle (Saale)"),
    ("tuebingen", "Q3806", ("Tübingen", "Tübingen", "Tübingen", "蒂宾根"), "germany", "university town in Baden-Württemberg, Germany", "Tübingen"),
    ("koenigsberg", "Q4120832", ("Königsberg", "Königsberg", "Königsberg", "柯尼斯堡"), None, "historical city in East Prussia, today Kaliningrad", "Königsberg"),
    # France
    ("paris", "Q90", ("Paris", "Paris", "Paris", "巴黎"), "france", "capital and largest city of France", "Paris"),
    ("lille", "Q648", ("Lille", "Lille", "Lille", "里尔"), "france", "city in northern France", "Lille"),
    ("lyon", "Q456", ("Lyon", "Lyon", "Lyon", "里昂"), "france", "city in south-eastern France", "Lyon"),
    ("strasbourg", "Q6602", ("Strasbourg", "Straßburg", "Strasbourg", "斯特拉斯堡"), "france", "city in Alsace, France", "Strasbourg"),
    ("mulhouse", "Q79815", ("Mulhouse", "Mülhausen", "Mulhouse", "米卢斯"), "france", "city in Alsace, France", "Mulhouse"),
    ("dieppe", "Q183557", ("Dieppe", "Dieppe", "Dieppe", "迪耶普"), "france", "port town in Normandy, France", "Dieppe"),
    # United Kingdom
    ("london", "Q84", ("London", "London", "Londres", "伦敦"), "uk", "capital and largest city of the United Kingdom", "London"),
    ("manchester", "Q18125", ("Manchester", "Manchester", "Manchester", "曼彻斯特"), "uk", "city in north-west England", "Manchester"),
    ("cambridge", "Q350", ("Cambridge", "Cambridge", "Cambridge", "剑桥"), "uk", "university city in Cambridgeshire, England", "Cambridge"),
    ("oxford", "Q34217", ("Oxford", "Oxford", "Oxford", "牛津"), "uk", "university city in Oxfordshire, England", "Oxford"),
    ("edinburgh", "Q23436", ("Edinburgh", "Edinburgh", "Édimbourg", "爱丁堡"), "uk", "capital city of Scotland", "Edinburgh"),
    ("glasgow", "Q4093", ("Glasgow", "Glasgow", "Glasgow", "格拉斯哥"), "uk", "largest city in Scotland", "Glasgow"),
    ("bristol", "Q23154", ("Bristol", "Bristol", "Bristol", "布里斯托"), "uk", "city in south-west England", "Bristol"),
    ("leeds", "Q39121", ("Leeds", "Leeds", "Leeds", "利兹"), "uk", "city in West Yorkshire, England", "Leeds"),
    ("liverpool", "Q24826", ("Liverpool", "Liverpool", "Liverpool", "利物浦"), "uk", "port city in north-west England", "Liverpool"),
    ("aberdeen", "Q36405", ("Aberdeen", "Aberdeen", "Aberdeen", "阿伯丁"), "uk", "city in north-east Scotland", "Aberdeen"),
    ("bradford", "Q22905", ("Bradford", "Bradford", "Bradford", "布拉德福德"), "uk", "city in West Yorkshire, England", "Bradford"),
    ("brighton", "Q131491", ("Brighton", "Brighton", "Brighton", "布莱顿"), "uk", "seaside town in East Sussex, England", "Brighton"),
    ("newcastle", "Q1425428", ("Newcastle upon Tyne", "Newcastle upon Tyne", "Newcastle upon Tyne", "泰恩河畔纽卡斯尔"), "uk", "city in north-east England", "Newcastle upon Tyne"),
    ("ipswich", "Q184775", ("Ipswich", "Ipswich", "Ipswich", "伊普斯威奇"), "uk", "town in Suffolk, England", "Ipswich"),
    # United States
    ("washington", "Q61", ("Washington, D.C.", "Washington, D.C.", "Washington", "华盛顿哥伦比亚特区"), "usa", "capital city of the United States", "Washington, D.C."),
    ("new_york", "Q60", ("New York City", "New York City", "New York", "纽约"), "usa", "most populous city in the United States", "New York City"),
    ("brooklyn", "Q18419", ("Brooklyn", "Brooklyn", "Brooklyn", "布鲁克林"), "usa", "borough of New York City", "Brooklyn"),
    ("chicago", "Q1297", ("Chicago", "Chicago", "Chicago", "芝加哥"), "usa", "city in Illinois, United States", "Chicago"),
    ("princeton", "Q138518", ("Princeton", "Princeton", "Princeton", "普林斯顿"), "usa", "municipality in New Jersey, United States", "Princeton, New Jersey"),
    ("pasadena", "Q485176", ("Pasadena", "Pasadena", "Pasadena", "帕萨迪纳"), "usa", "city in Los Angeles County, California, United States", "Pasadena, California"),
    ("berkeley", "Q484678", ("Berkeley", "Berkeley", "Berkeley", "伯克利"), "usa", "city in Alameda County, California, United States", "Berkeley, California"),
    ("los_angeles", "Q65", ("Los Angeles", "Los Angeles", "Los Angeles", "洛杉矶"), "usa", "city in California, United States", "Los Angeles"),
    ("boston", "Q100", ("Boston", "Boston", "Boston", "波士顿"), "usa", "capital of Massachusetts, United States", "Boston"),
    ("cambridge_ma", "Q49111", ("Cambridge", "Cambridge (Massachusetts)", "Cambridge (Massachusetts)", "剑桥 (马萨诸塞州)"), "usa", "city in Middlesex County, Massachusetts, United States", "Cambridge, Massachusetts"),
    ("new_haven", "Q49145", ("New Haven", "New Haven", "New Haven", "纽黑文"), "usa", "city in Connecticut, United States", "New Haven, Connecticut"),
    ("ithaca", "Q217346", ("Ithaca", "Ithaca", "Ithaca", "伊萨卡"), "usa", "city in New York State, United States", "Ithaca, New York"),
    ("madison", "Q43788", ("Madison", "Madison", "Madison", "麦迪逊"), "usa", "capital of Wisconsin, United States", "Madison, Wisconsin"),
    ("san_diego", "Q16552", ("San Diego", "San Diego", "San Diego", "圣迭戈"), "usa", "city in California, United States", "San Diego"),
    ("santa_fe", "Q38555", ("Santa Fe", "Santa Fe", "Santa Fe", "圣菲"), "usa", "capital of New Mexico, United States", "Santa Fe, New Mexico"),
    ("austin", "Q16559", ("Austin", "Austin", "Austin", "奥斯汀"), "usa", "capital of Texas, United States", "Austin, Texas"),
    ("houston", "Q16555", ("Houston", "Houston", "Houston", "休斯敦"), "usa", "city in Texas, United States", "Houston"),
    ("indianapolis", "Q6346", ("Indianapolis", "Indianapolis", "Indianapolis", "印第安纳波利斯"), "usa", "capital of Indiana, United States", "Indianapolis"),
    ("pittsburgh", "Q1342", ("Pittsburgh", "Pittsburgh", "Pittsburgh", "匹兹堡"), "usa", "city in Pennsylvania, United States", "Pittsburgh"),
    ("philadelphia", "Q1345", ("Philadelphia", "Philadelphia", "Philadelphie", "费城"), "usa", "city in Pennsylvania, United States", "Philadelphia"),
    ("baltimore", "Q5092", ("Baltimore", "Baltimore", "Baltimore", "巴尔的摩"), "usa", "city in Maryland, United States", "Baltimore"),
    ("st_louis", "Q38022", ("St. Louis", "St. Louis", "Saint-Louis", "圣路易斯"), "usa", "city in Missouri, United States", "St. Louis"),
    ("minneapolis", "Q36091", ("Minneapolis", "Minneapolis", "Minneapolis", "明尼阿波利斯"), "usa", "city in Minnesota, United States", "Minneapolis"),
    ("saint_paul", "Q28848", ("Saint Paul", "Saint Paul", "Saint Paul", "圣保罗"), "usa", "capital of Minnesota, United States", "Saint Paul, Minnesota"),
    ("ann_arbor", "Q485172", ("Ann Arbor", "Ann Arbor", "Ann Arbor", "安娜堡"), "usa", "city in Michigan, United States", "Ann Arbor, Michigan"),
    ("portland", "Q6106", ("Portland", "Portland", "Portland", "波特兰"), "usa", "city in Oregon, United States", "Portland, Oregon"),
    ("tallahassee", "Q37043", ("Tallahassee", "Tallahassee", "Tallahassee", "塔拉哈西"), "usa", "capital of Florida, United States", "Tallahassee, Florida"),
    ("jacksonville", "Q16568", ("Jacksonville", "Jacksonville", "Jacksonville", "杰克逊维尔"), "usa", "city in Florida, United States", "Jacksonville, Florida"),
    ("palo_alto", "Q47265", ("Palo Alto", "Palo Alto", "Palo Alto", "帕罗奥图"), "usa", "city in Santa Clara County, California, United States", "Palo Alto, California"),
    # Netherlands
    ("amsterdam", "Q727", ("Amsterdam", "Amsterdam", "Amsterdam", "阿姆斯特丹"), "netherlands", "capital of the Netherlands", "Amsterdam"),
    ("leiden", "Q43631", ("Leiden", "Leiden", "Leyde", "莱顿"), "netherlands", "university city in South Holland, Netherlands", "Leiden"),
    ("rotterdam", "Q34370", ("Rotterdam", "Rotterdam", "Rotterdam", "鹿特丹"), "netherlands", "port city in South Holland, Netherlands", "Rotterdam"),
    ("utrecht", "Q803", ("Utrecht", "Utrecht", "Utrecht", "乌得勒支"), "netherlands", "city in the Netherlands", "Utrecht"),
    ("arnhem", "Q1310", ("Arnhem", "Arnheim", "Arnhem", "阿纳姆"), "netherlands", "capital of Gelderland, Netherlands", "Arnhem"),
    ("haarlem", "Q9920", ("Haarlem", "Haarlem", "Haarlem", "哈勒姆"), "netherlands", "capital of North Holland, Netherlands", "Haarlem"),
    ("maastricht", "Q1309", ("Maastricht", "Maastricht", "Maastricht", "马斯特里赫特"), "netherlands", "capital of Limburg, Netherlands", "Maastricht"),
    # Austria, Switzerland, Italy
    ("vienna", "Q1741", ("Vienna", "Wien", "Vienne", "维也纳"), "austria", "capital of Austria", "Vienna"),
    ("graz", "Q13298", ("Graz", "Graz", "Graz", "格拉茨"), "austria", "capital of Styria, Austria", "Graz"),
    ("zurich", "Q72", ("Zurich", "Zürich", "Zurich", "苏黎世"), "switzerland", "largest city in Switzerland", "Zurich"),
    ("bern", "Q70", ("Bern", "Bern", "Berne", "伯尔尼"), "switzerland", "federal city of Switzerland", "Bern"),
    ("basel", "Q78", ("Basel", "Basel", "Bâle", "巴塞尔"), "switzerland", "city on the Rhine in Switzerland", "Basel"),
    ("geneva", "Q71", ("Geneva", "Genf", "Genève", "日内瓦"), "switzerland", "city in Switzerland", "Geneva"),
    ("rome", "Q220", ("Rome", "Rom", "Rome", "罗马"), "italy", "capital of Italy", "Rome"),
    ("pisa", "Q13375", ("Pisa", "Pisa", "Pise", "比萨"), "italy", "city in Tuscany, Italy", "Pisa"),
    ("sanremo", "Q33962", ("Sanremo", "Sanremo", "Sanremo", "圣雷莫"), "italy", "city in Liguria, Italy", "Sanremo"),
    # Nordic countries
    ("stockholm", "Q1754", ("Stockholm", "Stockholm", "Stockholm", "斯德哥尔摩"), "sweden", "capital of Sweden", "Stockholm"),
    ("uppsala", "Q25286", ("Uppsala", "Uppsala", "Uppsala", "乌普萨拉"), "sweden", "university city in Sweden", "Uppsala"),
    ("lund", "Q2167", ("Lund", "Lund", "Lund", "隆德"), "sweden", "university city in Scania, Sweden", "Lund"),
    ("valbo", "Q1786152", ("Valbo", "Valbo", "Valbo", None), "sweden", "locality in Gävleborg County, Sweden", None),
    ("copenhagen", "Q1748", ("Copenhagen", "Kopenhagen", "Copenhague", "哥本哈根"), "denmark", "capital of Denmark", "Copenhagen"),
    # Central and Eastern Europe
    ("moscow", "Q649", ("Moscow", "Moskau", "Moscou", "莫斯科"), "russia", "capital of Russia", "Moscow"),
    ("saint_petersburg", "Q656", ("Saint Petersburg", "Sankt Petersburg", "Saint-Pétersbourg", "圣彼得堡"), "russia", "second-largest city of Russia", "Saint Petersburg"),
    ("budapest", "Q1781", ("Budapest", "Budapest", "Budapest", "布达佩斯"), "hungary", "capital of Hungary", "Budapest"),
    ("warsaw", "Q270", ("Warsaw", "Warschau", "Varsovie", "华沙"), "poland", "capital of Poland", "Warsaw"),
    ("wroclaw", "Q1799", ("Wrocław", "Breslau", "Wrocław", "弗罗茨瓦夫"), "poland", "city in Lower Silesia, Poland (German: Breslau)", "Wrocław"),
    ("katowice", "Q588", ("Katowice", "Kattowitz", "Katowice", "卡托维兹"), "poland", "city in Silesia, Poland", "Katowice"),
    ("bratislava", "Q1780", ("Bratislava", "Bratislava", "Bratislava", "布拉迪斯拉发"), "slovakia", "capital of Slovakia (German: Pressburg)", "Bratislava"),
    ("ljubljana", "Q437", ("Ljubljana", "Ljubljana", "Ljubljana", "卢布尔雅那"), "slovenia", "capital of Slovenia (German: Laibach)", "Ljubljana"),
    ("baku", "Q9248", ("Baku", "Baku", "Bakou", "巴库"), "azerbaijan", "capital of Azerbaijan", "Baku"),
    ("brussels", "Q239", ("Brussels", "Brüssel", "Bruxelles", "布鲁塞尔"), "belgium", "capital of Belgium", "Brussels"),
    # Elsewhere
    ("cairo", "Q85", ("Cairo", "Kairo", "Le Caire", "开罗"), "egypt", "capital of Egypt", "Cairo"),
    ("alexandria", "Q87", ("Alexandria", "Alexandria", "Alexandrie", "亚历山大"), "egypt", "port city in northern Egypt", "Alexandria"),
    ("jerusalem", "Q1218", ("Jerusalem", "Jerusalem", "Jérusalem", "耶路撒冷"), "israel", "city in the Middle East", "Jerusalem"),
    ("lahore", "Q11739", ("Lahore", "Lahore", "Lahore", "拉合尔"), "pakistan", "capital of Punjab, Pakistan", "Lahore"),
    ("islamabad", "Q1362", ("Islamabad", "Islamabad", "Islamabad", "伊斯兰堡"), "pakistan", "capital of Pakistan", "Islamabad"),
    ("new_delhi", "Q987", ("New Delhi", "Neu-Delhi", "New Delhi", "新德里"), "india", "capital of India", "New Delhi"),
    ("chennai", "Q1352", ("Chennai", "Chennai", "Chennai", "金奈"), "india", "capital of Tamil Nadu, India (formerly Madras)", "Chennai"),
    ("tokyo", "Q1490", ("Tokyo", "Tokio", "Tokyo", "东京"), "japan", "capital of Japan", "Tokyo"),
    ("kyoto", "Q34600", ("Kyoto", "Kyōto", "Kyoto", "京都"), "japan", "city in Japan, former imperial capital", "Kyoto"),
    ("adelaide", "Q5112", ("Adelaide", "Adelaide", "Adélaïde", "阿德莱德"), "australia", "capital of South Australia", "Adelaide"),
    ("canberra", "Q3114", ("Canberra", "Canberra", "Canberra", "堪培拉"), "australia", "capital of Australia", "Canberra"),
    ("ottawa", "Q1930", ("Ottawa", "Ottawa", "Ottawa", "渥太华"), "canada", "capital of Canada", "Ottawa"),
    ("montreal", "Q340", ("Montreal", "Montreal", "Montréal", "蒙特利尔"), "canada", "city in Quebec, Canada", "Montreal"),
    ("wellington", "Q23661", ("Wellington", "Wellington", "Wellington", "惠灵顿"), "new_zealand", "capital of New Zealand", "Wellington"),
    ("christchurch", "Q79990", ("Christchurch", "Christchurch", "Christchurch", "基督城"), "new_zealand", "city on the South Island of New Zealand", "Christchurch"),
]

# Capital cities (they are instances of "capital" as well as of "city").
CAPITALS = {"berlin", "paris", "london", "washington", "amsterdam", "vienna", "bern", "rome", "stockholm",
            "copenhagen", "moscow", "tokyo", "budapest", "warsaw", "brussels", "cairo", "jerusalem", "islamabad",
            "new_delhi", "canberra", "ottawa", "wellington", "bratislava", "ljubljana", "baku"}

# ---------------------------------------------------------------------------
# Organisations: key, qid, labels (en, de, fr, zh), class key, country key,
# city key (or None), inception year (or None), enwiki title.
# ---------------------------------------------------------------------------
U, C, RI, ORG = "university", "cam_college", "research_institute", "organization"
ORGS = [
    # Germany
    ("u_goettingen", "Q152838", ("University of Göttingen", "Georg-August-Universität Göttingen", "université de Göttingen", "哥廷根大学"), U, "germany", "goettingen", 1734, "University of Göttingen"),
    ("lmu", "Q55044", ("Ludwig Maximilian University of Munich", "Ludwig-Maximilians-Universität München", "université Louis-et-Maximilien de Munich", "慕尼黑大学"), U, "germany", "munich", 1472, "Ludwig Maximilian University of Munich"),
    ("humboldt", "Q152087", ("Humboldt University of Berlin", "Humboldt-Universität zu Berlin", "université Humboldt de Berlin", "柏林洪堡大学"), U, "germany", "berlin", None, "Humboldt University of Berlin"),
    ("tu_berlin", "Q51985", ("Technical University of Berlin", "Technische Universität Berlin", "université technique de Berlin", "柏林工业大学"), U, "germany", "berlin", None, "Technical University of Berlin"),
    ("u_wuerzburg", "Q161976", ("University of Würzburg", "Julius-Maximilians-Universität Würzburg", "université de Wurtzbourg", "维尔茨堡大学"), U, "germany", "wuerzburg", 1402, "University of Würzburg"),
    ("u_heidelberg", "Q151510", ("Heidelberg University", "Ruprecht-Karls-Universität Heidelberg", "université de Heidelberg", "海德堡大学"), U, "germany", "heidelberg", 1386, "Heidelberg University"),
    ("u_giessen", "Q317053", ("University of Giessen", "Justus-Liebig-Universität Gießen", "université de Giessen", "吉森大学"), U, "germany", "giessen", 1607, "University of Giessen"),
    ("u_leipzig", "Q154804", ("Leipzig University", "Universität Leipzig", "université de Leipzig", "莱比锡大学"), U, "germany", "leipzig", 1409, "Leipzig University"),
    ("u_kiel", "Q156737", ("University of Kiel", "Christian-Albrechts-Universität zu Kiel", "université de Kiel", "基尔大学"), U, "germany", "kiel", 1665, "University of Kiel"),
    ("u_hamburg", "Q156725", ("University of Hamburg", "Universität Hamburg", "université de Hambourg", "汉堡大学"), U, "germany", "hamburg", 1919, "University of Hamburg"),
    ("u_frankfurt", "Q50662", ("Goethe University Frankfurt", "Goethe-Universität Frankfurt am Main", "université Goethe de Francfort", "法兰克福大学"), U, "germany", "frankfurt", 1914, "Goethe University Frankfurt"),
    ("u_marburg", "Q155354", ("University of Marburg", "Philipps-Universität Marburg", "université de Marbourg", "马尔堡大学"), U, "germany", "marburg", 1527, "University of Marburg"),
    ("u_halle", "Q32120", ("Martin Luther University of Halle-Wittenberg", "Martin-Luther-Universität Halle-Wittenberg", "université de Halle-Wittenberg", "哈勒-维滕贝格大学"), U, "germany", "halle", None, "Martin Luther University of Halle-Wittenberg"),
    ("u_tuebingen", "Q153978", ("University of Tübingen", "Eberhard Karls Universität Tübingen", "université de Tübingen", "蒂宾根大学"), U, "germany", "tuebingen", 1477, "University of Tübingen"),
    ("u_freiburg", "Q153987", ("University of Freiburg", "Albert-Ludwigs-Universität Freiburg", "université de Fribourg-en-Brisgau", "弗赖堡大学"), U, "germany", "freiburg", 1457, "University of Freiburg"),
    ("u_bonn", "Q152171", ("University of Bonn", "Rheinische Friedrich-Wilhelms-Universität Bonn", "université de Bonn", "波恩大学"), U, "germany", "bonn", 1818, "University of Bonn"),
    ("tum", "Q157808", ("Technical University of Munich", "Technische Universität München", "université technique de Munich", "慕尼黑工业大学"), U, "germany", "munich", 1868, "Technical University of Munich"),
    ("rwth", "Q273263", ("RWTH Aachen University", "Rheinisch-Westfälische Technische Hochschule Aachen", "université technique de Rhénanie-Westphalie à Aix-la-Chapelle", "亚琛工业大学"), U, "germany", "aachen", 1870, "RWTH Aachen University"),
    ("u_breslau", "Q315658", ("University of Breslau", "Universität Breslau", "université de Breslau", "布雷斯劳大学"), U, "poland", "wroclaw", None, None),
    ("kws", "Q708038", ("Kaiser Wilhelm Society", "Kaiser-Wilhelm-Gesellschaft", "Société Kaiser-Wilhelm", "威廉皇帝学会"), ORG, "germany", "berlin", 1911, "Kaiser Wilhelm Society"),
    ("mpg", "Q158085", ("Max Planck Society", "Max-Planck-Gesellschaft", "Société Max-Planck", "马克斯·普朗克学会"), ORG, "germany", "munich", 1948, "Max Planck Society"),
    # Switzerland, Austria
    ("eth", "Q11942", ("ETH Zurich", "ETH Zürich", "École polytechnique fédérale de Zurich", "苏黎世联邦理工学院"), U, "switzerland", "zurich", 1855, "ETH Zurich"),
    ("u_zurich", "Q206702", ("University of Zurich", "Universität Zürich", "université de Zurich", "苏黎世大学"), U, "switzerland", "zurich", 1833, "University of Zurich"),
    ("u_vienna", "Q165980", ("University of Vienna", "Universität Wien", "université de Vienne", "维也纳大学"), U, "austria", "vienna", 1365, "University of Vienna"),
    ("u_graz", "Q622683", ("University of Graz", "Karl-Franzens-Universität Graz", "université de Graz", "格拉茨大学"), U, "austria", "graz", 1585, "University of Graz"),
    ("cern", "Q42944", ("CERN", "CERN", "Organisation européenne pour la recherche nucléaire", "欧洲核子研究组织"), "intl_org", None, None, 1954, "CERN"),
    # Netherlands, Nordic countries, Belgium
    ("u_leiden", "Q156598", ("Leiden University", "Universität Leiden", "université de Leyde", "莱顿大学"), U, "netherlands", "leiden", 1575, "Leiden University"),
    ("u_utrecht", "Q221653", ("Utrecht University", "Universität Utrecht", "université d'Utrecht", "乌得勒支大学"), U, "netherlands", "utrecht", 1636, "Utrecht University"),
    ("u_amsterdam", "Q214341", ("University of Amsterdam", "Universität Amsterdam", "université d'Amsterdam", "阿姆斯特丹大学"), U, "netherlands", "amsterdam", 1632, "University of Amsterdam"),
    ("u_copenhagen", "Q186285", ("University of Copenhagen", "Universität Kopenhagen", "université de Copenhague", "哥本哈根大学"), U, "denmark", "copenhagen", 1479, "University of Copenhagen"),
    ("u_uppsala", "Q185246", ("Uppsala University", "Universität Uppsala", "université d'Uppsala", "乌普萨拉大学"), U, "sweden", "uppsala", 1477, "Uppsala University"),
    ("u_stockholm", "Q221645", ("Stockholm University", "Universität Stockholm", "université de Stockholm", "斯德哥尔摩大学"), U, "sweden", "stockholm", 1878, "Stockholm University"),
    ("u_lund", "Q218506", ("Lund University", "Universität Lund", "université de Lund", "隆德大学"), U, "sweden", "lund", 1666, "Lund University"),
    ("rsas", "Q191583", ("Royal Swedish Academy of Sciences", "Königlich Schwedische Akademie der Wissenschaften", "Académie royale des sciences de Suède", "瑞典皇家科学院"), ORG, "sweden", "stockholm", 1739, "Royal Swedish Academy of Sciences"),
    ("ulb", "Q20754971", ("Free University of Brussels", "Freie Universität Brüssel", "université libre de Bruxelles", "布鲁塞尔自由大学"), U, "belgium", "brussels", 1834, None),
    # France, Italy
    ("u_paris", "Q209842", ("University of Paris", "Universität Paris", "université de Paris", "巴黎大学"), U, "france", "paris", None, "University of Paris"),
    ("polytechnique", "Q273626", ("École polytechnique", "École polytechnique", "École polytechnique", "巴黎综合理工学院"), U, "france", None, 1794, "École polytechnique"),
    ("sapienza", "Q209344", ("Sapienza University of Rome", "Universität La Sapienza", "université de Rome « La Sapienza »", "罗马大学"), U, "italy", "rome", 1303, "Sapienza University of Rome"),
    ("u_pisa", "Q645663", ("University of Pisa", "Universität Pisa", "université de Pise", "比萨大学"), U, "italy", "pisa", 1343, "University of Pisa"),
    # United Kingdom
    ("u_cambridge", "Q35794", ("University of Cambridge", "University of Cambridge", "université de Cambridge", "剑桥大学"), U, "uk", "cambridge", 1209, "University of Cambridge"),
    ("trinity", "Q332342", ("Trinity College, Cambridge", "Trinity College (Cambridge)", "Trinity College (Cambridge)", "剑桥大学三一学院"), C, "uk", "cambridge", 1546, "Trinity College, Cambridge"),
    ("st_johns", "Q691283", ("St John's College, Cambridge", "St John’s College (Cambridge)", "St John's College (Cambridge)", "剑桥大学圣约翰学院"), C, "uk", "cambridge", 1511, "St John's College, Cambridge"),
    ("u_oxford", "Q34433", ("University of Oxford", "University of Oxford", "université d'Oxford", "牛津大学"), U, "uk", "oxford", None, "University of Oxford"),
    ("victoria_manchester", "Q867530", ("Victoria University of Manchester", "Victoria University of Manchester", "université Victoria de Manchester", "维多利亚曼彻斯特大学"), U, "uk", "manchester", None, "Victoria University of Manchester"),
    ("u_edinburgh", "Q160302", ("University of Edinburgh", "Universität Edinburgh", "université d'Édimbourg", "爱丁堡大学"), U, "uk", "edinburgh", 1583, "University of Edinburgh"),
    ("u_glasgow", "Q192775", ("University of Glasgow", "Universität Glasgow", "université de Glasgow", "格拉斯哥大学"), U, "uk", "glasgow", 1451, "University of Glasgow"),
    ("u_aberdeen", "Q270532", ("University of Aberdeen", "Universität Aberdeen", "université d'Aberdeen", "阿伯丁大学"), U, "uk", "aberdeen", 1495, "University of Aberdeen"),
    ("ucl", "Q193196", ("University College London", "University College London", "University College de Londres", "伦敦大学学院"), U, "uk", "london", 1826, "University College London"),
    ("imperial", "Q189022", ("Imperial College London", "Imperial College London", "Imperial College London", "帝国理工学院"), U, "uk", "london", 1907, "Imperial College London"),
    ("kcl", "Q245247", ("King's College London", "King’s College London", "King's College de Londres", "伦敦国王学院"), U, "uk", "london", 1829, "King's College London"),
    ("u_bristol", "Q459506", ("University of Bristol", "Universität Bristol", "université de Bristol", "布里斯托大学"), U, "uk", "bristol", 1909, "University of Bristol"),
    ("u_liverpool", "Q499510", ("University of Liverpool", "Universität Liverpool", "université de Liverpool", "利物浦大学"), U, "uk", "liverpool", 1881, "University of Liverpool"),
    ("u_leeds", "Q503424", ("University of Leeds", "Universität Leeds", "université de Leeds", "利兹大学"), U, "uk", "leeds", 1904, "University of Leeds"),
    ("royal_institution", "Q2171086", ("Royal Institution", "Royal Institution", "Royal Institution", "英国皇家研究院"), ORG, "uk", "london", 1799, "Royal Institution"),
    ("royal_society", "Q123885", ("Royal Society", "Royal Society", "Royal Society", "英国皇家学会"), ORG, "uk", "london", 1660, "Royal Society"),
    # Rest of the Commonwealth
    ("mcgill", "Q201492", ("McGill University", "McGill University", "université McGill", "麦吉尔大学"), U, "canada", "montreal", 1821, "McGill University"),
    ("u_canterbury", "Q432475", ("University of Canterbury", "University of Canterbury", "université de Canterbury", "坎特伯雷大学"), U, "new_zealand", "christchurch", 1873, "University of Canterbury"),
    ("u_madras", "Q1364464", ("University of Madras", "Universität Madras", "université de Madras", "马德拉斯大学"), U, "india", "chennai", 1857, "University of Madras"),
    # United States
    ("princeton_u", "Q21578", ("Princeton University", "Princeton University", "université de Princeton", "普林斯顿大学"), U, "usa", "princeton", 1746, "Princeton University"),
    ("ias", "Q635642", ("Institute for Advanced Study", "Institute for Advanced Study", "Institute for Advanced Study", "普林斯顿高等研究院"), RI, "usa", "princeton", 1930, "Institute for Advanced Study"),
    ("harvard", "Q13371", ("Harvard University", "Harvard University", "université Harvard", "哈佛大学"), U, "usa", "cambridge_ma", 1636, "Harvard University"),
    ("mit", "Q49108", ("Massachusetts Institute of Technology", "Massachusetts Institute of Technology", "Massachusetts Institute of Technology", "麻省理工学院"), U, "usa", "cambridge_ma", 1861, "Massachusetts Institute of Technology"),
    ("columbia", "Q49088", ("Columbia University", "Columbia University", "université Columbia", "哥伦比亚大学"), U, "usa", "new_york", 1754, "Columbia University"),
    ("ccny", "Q1093910", ("City College of New York", "City College of New York", "City College of New York", "纽约城市学院"), U, "usa", "new_york", 1847, "City College of New York"),
    ("u_chicago", "Q131252", ("University of Chicago", "University of Chicago", "université de Chicago", "芝加哥大学"), U, "usa", "chicago", 1890, "University of Chicago"),
    ("caltech", "Q161562", ("California Institute of Technology", "California Institute of Technology", "California Institute of Technology", "加州理工学院"), U, "usa", "pasadena", 1891, "California Institute of Technology"),
    ("uc_berkeley", "Q168756", ("University of California, Berkeley", "University of California, Berkeley", "université de Californie à Berkeley", "加利福尼亚大学伯克利分校"), U, "usa", "berkeley", 1868, "University of California, Berkeley"),
    ("stanford", "Q41506", ("Stanford University", "Stanford University", "université Stanford", "斯坦福大学"), U, "usa", None, 1885, "Stanford University"),
    ("cornell", "Q49115", ("Cornell University", "Cornell University", "université Cornell", "康奈尔大学"), U, "usa", "ithaca", 1865, "Cornell University"),
    ("yale", "Q49112", ("Yale University", "Yale University", "université Yale", "耶鲁大学"), U, "usa", "new_haven", 1701, "Yale University"),
    ("jhu", "Q193727", ("Johns Hopkins University", "Johns Hopkins University", "université Johns-Hopkins", "约翰斯·霍普金斯大学"), U, "usa", "baltimore", 1876, "Johns Hopkins University"),
    ("ucsd", "Q622664", ("University of California, San Diego", "University of California, San Diego", "université de Californie à San Diego", "加利福尼亚大学圣地亚哥分校"), U, "usa", "san_diego", 1960, "University of California, San Diego"),
    ("ucla", "Q174710", ("University of California, Los Angeles", "University of California, Los Angeles", "université de Californie à Los Angeles", "加利福尼亚大学洛杉矶分校"), U, "usa", "los_angeles", 1919, "University of California, Los Angeles"),
    ("boston_u", "Q49110", ("Boston University", "Boston University", "université de Boston", "波士顿大学"), U, "usa", "boston", 1839, "Boston University"),
    ("ut_austin", "Q49213", ("University of Texas at Austin", "University of Texas at Austin", "université du Texas à Austin", "得克萨斯大学奥斯汀分校"), U, "usa", "austin", 1883, "University of Texas at Austin"),
    ("umich", "Q230492", ("University of Michigan", "University of Michigan", "université du Michigan", "密歇根大学"), U, "usa", "ann_arbor", 1817, "University of Michigan"),
    ("uw_madison", "Q838330", ("University of Wisconsin–Madison", "University of Wisconsin–Madison", "université du Wisconsin à Madison", "威斯康星大学麦迪逊分校"), U, "usa", "madison", 1848, "University of Wisconsin–Madison"),
    ("uiuc", "Q457281", ("University of Illinois Urbana-Champaign", "University of Illinois Urbana-Champaign", "université de l'Illinois à Urbana-Champaign", "伊利诺伊大学厄巴纳-香槟分校"), U, "usa", None, 1867, "University of Illinois Urbana-Champaign"),
    ("brown", "Q49114", ("Brown University", "Brown University", "université Brown", "布朗大学"), U, "usa", None, 1764, "Brown University"),
    ("upenn", "Q49117", ("University of Pennsylvania", "University of Pennsylvania", "université de Pennsylvanie", "宾夕法尼亚大学"), U, "usa", "philadelphia", 1740, "University of Pennsylvania"),
    ("northwestern", "Q309350", ("Northwestern University", "Northwestern University", "université Northwestern", "西北大学"), U, "usa", None, 1851, "Northwestern University"),
    ("umn", "Q238101", ("University of Minnesota", "University of Minnesota", "université du Minnesota", "明尼苏达大学"), U, "usa", "minneapolis", 1851, "University of Minnesota"),
    ("cmu", "Q190080", ("Carnegie Mellon University", "Carnegie Mellon University", "université Carnegie-Mellon", "卡内基梅隆大学"), U, "usa", "pittsburgh", 1900, "Carnegie Mellon University"),
    ("rice", "Q842909", ("Rice University", "Rice University", "université Rice", "莱斯大学"), U, "usa", "houston", 1912, "Rice University"),
    ("oregon_state", "Q861888", ("Oregon State University", "Oregon State University", "université d'État de l'Oregon", "俄勒冈州立大学"), U, "usa", None, 1868, "Oregon State University"),
    ("fsu", "Q861548", ("Florida State University", "Florida State University", "université d'État de Floride", "佛罗里达州立大学"), U, "usa", "tallahassee", 1851, "Florida State University"),
    ("purdue", "Q217741", ("Purdue University", "Purdue University", "université Purdue", "普渡大学"), U, "usa", None, 1869, "Purdue University"),
    ("oberlin", "Q616591", ("Oberlin College", "Oberlin College", "Oberlin College", "欧柏林学院"), U, "usa", None, 1833, "Oberlin College"),
    ("wooster", "Q1109093", ("College of Wooster", "College of Wooster", "College of Wooster", "伍斯特学院"), U, "usa", None, 1866, "College of Wooster"),
    ("washu", "Q777403", ("Washington University in St. Louis", "Washington University in St. Louis", "université Washington de Saint-Louis", "圣路易斯华盛顿大学"), U, "usa", "st_louis", 1853, "Washington University in St. Louis"),
    ("gwu", "Q432637", ("George Washington University", "George Washington University", "université George-Washington", "乔治·华盛顿大学"), U, "usa", "washington", 1821, "George Washington University"),
    ("bell_labs", "Q217365", ("Bell Labs", "Bell Labs", "Laboratoires Bell", "贝尔实验室"), RI, "usa", None, 1925, "Bell Labs"),
    ("ge", "Q54173", ("General Electric", "General Electric", "General Electric", "通用电气"), "business", "usa", None, 1892, "General Electric"),
    # Russia, Japan, Middle East
    ("msu", "Q13164", ("Moscow State University", "Lomonossow-Universität Moskau", "université d'État de Moscou", "莫斯科国立大学"), U, "russia", "moscow", 1755, "Moscow State University"),
    ("spbu", "Q27621", ("Saint Petersburg State University", "Staatliche Universität Sankt Petersburg", "université d'État de Saint-Pétersbourg", "圣彼得堡国立大学"), U, "russia", "saint_petersburg", 1724, "Saint Petersburg State University"),
    ("lebedev", "Q1810862", ("Lebedev Physical Institute", "Lebedew-Institut für Physik", "institut de physique Lebedev", "列别捷夫物理研究所"), RI, "russia", "moscow", None, "Lebedev Physical Institute"),
    ("u_kyoto", "Q336264", ("Kyoto University", "Universität Kyōto", "université de Kyoto", "京都大学"), U, "japan", "kyoto", 1897, "Kyoto University"),
    ("hebrew_u", "Q174158", ("Hebrew University of Jerusalem", "Hebräische Universität Jerusalem", "université hébraïque de Jérusalem", "耶路撒冷希伯来大学"), U, "israel", "jerusalem", 1918, "Hebrew University of Jerusalem"),
    ("u_alexandria", "Q1424632", ("Alexandria University", "Universität Alexandria", "université d'Alexandrie", "亚历山大大学"), U, "egypt", "alexandria", 1938, "Alexandria University"),
]

# Parts: (part key, whole key) -> "part of" statements.
PARTS = [("trinity", "u_cambridge"), ("st_johns", "u_cambridge")]

# Official websites (url datatype).
WEBSITES = [("nobel_prize", "https://www.nobelprize.org/"), ("cern", "https://home.cern/"),
            ("mit", "https://www.mit.edu/")]

# ---------------------------------------------------------------------------
# Awards: key, qid, labels (en, de, fr, zh), description, class keys,
# conferred-by key, part-of key, named-after key, enwiki.
# ---------------------------------------------------------------------------
AWARDS = [
    ("nobel_prize", "Q7191", ("Nobel Prize", "Nobelpreis", "prix Nobel", "诺贝尔奖"),
     "set of annual international awards established by the will of Alfred Nobel", ["award"], None, None, "alfred_nobel", "Nobel Prize"),
    ("nobel_physics", "Q38104", ("Nobel Prize in Physics", "Nobelpreis für Physik", "prix Nobel de physique", "诺贝尔物理学奖"),
     "annual award for outstanding contributions to physics", ["nobel_prize"], "rsas", "nobel_prize", None, "Nobel Prize in Physics"),
    ("nobel_chemistry", "Q44585", ("Nobel Prize in Chemistry", "Nobelpreis für Chemie", "prix Nobel de chimie", "诺贝尔化学奖"),
     "annual award for outstanding contributions to chemistry", ["nobel_prize"], "rsas", "nobel_prize", None, "Nobel Prize in Chemistry"),
    ("nobel_peace", "Q35637", ("Nobel Peace Prize", "Friedensnobelpreis", "prix Nobel de la paix", "诺贝尔和平奖"),
     "annual award for work for peace", ["nobel_prize"], None, "nobel_prize", None, "Nobel Peace Prize"),
    ("copley", "Q28003", ("Copley Medal", "Copley-Medaille", "médaille Copley", "科普利奖章"),
     "award of the Royal Society for outstanding achievements in research", ["award"], "royal_society", None, None, "Copley Medal"),
    ("davy", "Q220842", ("Davy Medal", "Davy-Medaille", "médaille Davy", "戴维奖章"),
     "award of the Royal Society for discoveries in chemistry", ["award"], "royal_society", None, None, "Davy Medal"),
    ("planck_medal", "Q317038", ("Max Planck Medal", "Max-Planck-Medaille", "médaille Max-Planck", "马克斯·普朗克奖章"),
     "award of the German Physical Society for theoretical physics", ["award"], None, None, "planck", "Max Planck Medal"),
]
AWARD_ALIASES = {
    "nobel_physics": ["Nobel physics prize", "physics Nobel"],
    "nobel_chemistry": ["Nobel chemistry prize", "chemistry Nobel"],
    "nobel_prize": ["Nobel"],
}

# Nobel prize category in nobelprize.org URLs.
NOBEL_URL_CATEGORY = {"nobel_physics": "physics", "nobel_chemistry": "chemistry", "nobel_peace": "peace"}


# ---------------------------------------------------------------------------
# People.  One call per person; keyword arguments:
#   zh        Chinese label (required); de / fr: labels if not the English one
#   desc      English description
#   sex       "male" / "female"
#   born, died: ("YYYY-MM-DD" or "YYYY", place key or None)
#   cit       countries of citizenship
#   edu, emp  organisation keys (educated at / employer)
#   awards    [(award key, year)]
#   fields, occ: field / occupation keys
#   aliases   English aliases
#   enwiki    English Wikipedia title (None: no sitelink)
#   native    [(name, language)] -> name in native language
#   member    organisation keys (member of)
# ---------------------------------------------------------------------------
PEOPLE: list[dict] = []


def person(key: str, qid: str, en: str, *, zh: str, desc: str, sex: str = "male",
           born: tuple[str, str | None] | None = None, died: tuple[str, str | None] | None = None,
           cit: Iterable[str] = (), edu: Iterable[str] = (), emp: Iterable[str] = (),
           awards: Iterable[tuple[str, int]] = (), fields: Iterable[str] = (),
           occ: Iterable[str] = ("physicist",), aliases: Iterable[str] = (), enwiki: str | None = "",
           de: str | None = None, fr: str | None = None, native: Iterable[tuple[str, str]] = (),
           member: Iterable[str] = ()) -> None:
    PEOPLE.append({"key": key, "qid": qid, "labels": (en, de or en, fr or en, zh), "desc": desc, "sex": sex,
                   "born": born, "died": died, "cit": list(cit), "edu": list(edu), "emp": list(emp),
                   "awards": list(awards), "fields": list(fields), "occ": list(occ), "aliases": list(aliases),
                   "enwiki": en if enwiki == "" else enwiki, "native": list(native), "member": list(member)})


NP, NC = "nobel_physics", "nobel_chemistry"
PHYS, CHEM = ("physics",), ("chemistry",)

# --- Physics laureates -----------------------------------------------------
person("roentgen", "Q35149", "Wilhelm Röntgen", de="Wilhelm Conrad Röntgen", zh="威廉·伦琴",
       desc="German physicist, discoverer of X-rays (1845–1923)", born=("1845-03-27", None), died=("1923-02-10", "munich"),
       cit=["germany"], edu=["eth", "u_zurich"], emp=["u_giessen", "u_wuerzburg", "lmu"], awards=[(NP, 1901)],
       fields=PHYS, aliases=["Wilhelm Conrad Röntgen", "Röntgen", "Roentgen"])
person("lorentz", "Q41688", "Hendrik Lorentz", de="Hendrik Antoon Lorentz", zh="亨德里克·洛伦兹",
       desc="Dutch physicist (1853–1928)", born=("1853-07-18", "arnhem"), died=("1928-02-04", "haarlem"),
       cit=["netherlands"], edu=["u_leiden"], emp=["u_leiden"], awards=[(NP, 1902), ("copley", 1918)],
       fields=PHYS, aliases=["Hendrik Antoon Lorentz", "H. A. Lorentz"])
person("zeeman", "Q79000", "Pieter Zeeman", zh="彼得·塞曼", desc="Dutch physicist (1865–1943)",
       born=("1865-05-25", None), died=("1943-10-09", "amsterdam"), cit=["netherlands"], edu=["u_leiden"],
       emp=["u_amsterdam"], awards=[(NP, 1902)], fields=PHYS)
person("becquerel", "Q41269", "Henri Becquerel", zh="亨利·贝克勒尔", desc="French physicist, discoverer of radioactivity (1852–1908)",
       born=("1852-12-15", "paris"), died=("1908-08-25", None), cit=["france"], edu=["polytechnique"],
       emp=["polytechnique"], awards=[(NP, 1903)], fields=["physics", "radioactivity"],
       aliases=["Antoine Henri Becquerel"])
person("pierre_curie", "Q37463", "Pierre Curie", zh="皮埃尔·居里", desc="French physicist (1859–1906)",
       born=("1859-05-15", "paris"), died=("1906-04-19", "paris"), cit=["france"], edu=["u_paris"], emp=["u_paris"],
       awards=[(NP, 1903), ("davy", 1903)], fields=["physics", "radioactivity"])
person("marie_curie", "Q7186", "Marie Curie", zh="玛丽·居里", sex="female",
       desc="Polish-French physicist and chemist (1867–1934)", born=("1867-11-07", "warsaw"), died=("1934-07-04", None),
       cit=["france"], edu=["u_paris"], emp=["u_paris"], awards=[(NP, 1903), (NC, 1911), ("davy", 1903)],
       fields=["physics", "chemistry", "radioactivity"], occ=["physicist", "chemist"],
       aliases=["Maria Skłodowska-Curie", "Maria Salomea Skłodowska", "Madame Curie", "Marie Skłodowska Curie"],
       native=[("Maria Skłodowska-Curie", "pl")])
person("rayleigh", "Q83297", "John William Strutt, 3rd Baron Rayleigh", de="John William Strutt, 3. Baron Rayleigh",
       fr="John William Strutt Rayleigh", zh="约翰·威廉·斯特拉特，第三代瑞利男爵", desc="British physicist (1842–1919)",
       born=("1842-11-12", None), died=("1919-06-30", None), cit=["uk"], edu=["trinity"],
       emp=["u_cambridge", "royal_institution"], awards=[(NP, 1904), ("copley", 1899)], fields=PHYS,
       aliases=["Lord Rayleigh", "John William Strutt", "Rayleigh"], member=["royal_society"])
person("lenard", "Q57063", "Philipp Lenard", zh="菲利普·莱纳德", desc="German physicist (1862–1947)",
       born=("1862-06-07", "bratislava"), died=("1947-05-20", None), cit=["germany"], edu=["u_heidelberg"],
       emp=["u_heidelberg", "u_kiel"], awards=[(NP, 1905)], fields=PHYS, aliases=["Philipp Eduard Anton von Lenard"])
person("jj_thomson", "Q47285", "J. J. Thomson", de="Joseph John Thomson", fr="Joseph John Thomson", zh="约瑟夫·约翰·汤姆孙",
       desc="British physicist, discoverer of the electron (1856–1940)", born=("1856-12-18", "manchester"),
       died=("1940-08-30", "cambridge"), cit=["uk"], edu=["victoria_manchester", "trinity"], emp=["u_cambridge"],
       awards=[(NP, 1906), ("copley", 1914)], fields=PHYS, aliases=["Joseph John Thomson", "Sir J. J. Thomson"],
       member=["royal_society"])
person("van_der_waals", "Q131721", "Johannes Diderik van der Waals", zh="约翰内斯·迪德里克·范德瓦耳斯",
       desc="Dutch physicist (1837–1923)", born=("1837-11-23", "leiden"), died=("1923-03-08", "amsterdam"),
       cit=["netherlands"], edu=["u_leiden"], emp=["u_amsterdam"], awards=[(NP, 1910)], fields=PHYS,
       aliases=["van der Waals"])
person("wien", "Q57068", "Wilhelm Wien", zh="威廉·维恩", desc="German physicist (1864–1928)",
       born=("1864-01-13", None), died=("1928-08-30", "munich"), cit=["germany"], edu=["humboldt", "u_goettingen"],
       emp=["u_wuerzburg", "lmu"], awards=[(NP, 1911)], fields=PHYS, aliases=["Wilhelm Carl Werner Otto Fritz Franz Wien"])
person("wh_bragg", "Q133747", "William Henry Bragg", zh="威廉·亨利·布拉格", desc="British physicist (1862–1942)",
       born=("1862-07-02", None), died=("1942-03-12", "london"), cit=["uk"], edu=["trinity"],
       emp=["u_leeds", "ucl", "royal_institution"], awards=[(NP, 1915), ("copley", 1930)], fields=PHYS,
       aliases=["W. H. Bragg", "Sir William Henry Bragg"], member=["royal_society"])
person("wl_bragg", "Q131729", "Lawrence Bragg", de="William Lawrence Bragg", fr="William Lawrence Bragg", zh="威廉·劳伦斯·布拉格",
       desc="Australian-born British physicist (1890–1971)", born=("1890-03-31", "adelaide"), died=("1971-07-01", "ipswich"),
       cit=["uk"], edu=["trinity"], emp=["victoria_manchester", "u_cambridge", "royal_institution"],
       awards=[(NP, 1915)], fields=PHYS, aliases=["William Lawrence Bragg", "W. L. Bragg", "Sir Lawrence Bragg"],
       member=["royal_society"])
person("planck", "Q9021", "Max Planck", zh="马克斯·普朗克", desc="German theoretical physicist (1858–1947)",
       born=("1858-04-23", "kiel"), died=("1947-10-04", "goettingen"), cit=["germany"], edu=["lmu", "humboldt"],
       emp=["u_kiel", "humboldt"], awards=[(NP, 1918), ("copley", 1929), ("planck_medal", 1929)],
       fields=["physics", "quantum_mechanics"], aliases=["Max Karl Ernst Ludwig Planck", "Planck"], member=["kws"])
person("einstein", "Q937", "Albert Einstein", zh="阿尔伯特·爱因斯坦", desc="German-born theoretical physicist (1879–1955)",
       born=("1879-03-14", "ulm"), died=("1955-04-18", "princeton"), cit=["switzerland", "usa"],
       edu=["eth", "u_zurich"], emp=["u_zurich", "eth", "humboldt", "ias"],
       awards=[(NP, 1921), ("copley", 1925), ("planck_medal", 1929)], fields=["physics", "quantum_mechanics"],
       aliases=["Einstein", "A. Einstein"], native=[("Albert Einstein", "de")], member=["royal_society"])
person("bohr", "Q7085", "Niels Bohr", zh="尼尔斯·玻尔", desc="Danish physicist (1885–1962)",
       born=("1885-10-07", "copenhagen"), died=("1962-11-18", "copenhagen"), cit=["denmark"], edu=["u_copenhagen"],
       emp=["u_copenhagen", "victoria_manchester"], awards=[(NP, 1922), ("planck_medal", 1930), ("copley", 1938)],
       fields=["physics", "quantum_mechanics"], aliases=["Niels Henrik David Bohr", "Bohr"],
       native=[("Niels Bohr", "da")])
person("millikan", "Q130975", "Robert A. Millikan", de="Robert Andrews Millikan", fr="Robert Andrews Millikan", zh="罗伯特·密立根",
       desc="American experimental physicist (1868–1953)", born=("1868-03-22", None), died=("1953-12-19", None),
       cit=["usa"], edu=["oberlin", "columbia"], emp=["u_chicago", "caltech"], awards=[(NP, 1923)], fields=PHYS,
       aliases=["Robert Andrews Millikan", "Robert Millikan"])
person("manne_siegbahn", "Q170741", "Manne Siegbahn", zh="曼内·西格巴恩", desc="Swedish physicist (1886–1978)",
       born=("1886-12-03", None), died=("1978-09-26", "stockholm"), cit=["sweden"], edu=["u_lund"],
       emp=["u_lund", "u_uppsala"], awards=[(NP, 1924)], fields=PHYS, aliases=["Karl Manne Georg Siegbahn"])
person("kai_siegbahn", "Q192712", "Kai Siegbahn", zh="凯·西格巴恩", desc="Swedish physicist (1918–2007)",
       born=("1918-04-20", "lund"), died=("2007-07-20", None), cit=["sweden"], edu=["u_stockholm"], emp=["u_uppsala"],
       awards=[(NP, 1981)], fields=PHYS, aliases=["Kai Manne Börje Siegbahn"])
person("franck", "Q57066", "James Franck", zh="詹姆斯·弗兰克", desc="German-American physicist (1882–1964)",
       born=("1882-08-26", "hamburg"), died=("1964-05-21", "goettingen"), cit=["germany", "usa"],
       edu=["humboldt", "u_heidelberg"], emp=["u_goettingen", "jhu", "u_chicago"], awards=[(NP, 1925)], fields=PHYS)
person("perrin", "Q134085", "Jean Baptiste Perrin", de="Jean-Baptiste Perrin", fr="Jean Perrin", zh="让·佩兰",
       desc="French physicist (1870–1942)", born=("1870-09-30", "lille"), died=("1942-04-17", "new_york"),
       cit=["france"], emp=["u_paris"], awards=[(NP, 1926)], fields=PHYS, aliases=["Jean Perrin"])
person("compton", "Q127944", "Arthur Compton", de="Arthur Holly Compton", fr="Arthur Compton", zh="阿瑟·康普顿",
       desc="American physicist (1892–1962)", born=("1892-09-10", None), died=("1962-03-15", "berkeley"),
       cit=["usa"], edu=["wooster", "princeton_u"], emp=["u_chicago", "washu"], awards=[(NP, 1927)], fields=PHYS,
       aliases=["Arthur Holly Compton"])
person("de_broglie", "Q83331", "Louis de Broglie", zh="路易·德布罗意", desc="French physicist (1892–1987)",
       born=("1892-08-15", "dieppe"), died=("1987-03-19", None), cit=["france"], edu=["u_paris"], emp=["u_paris"],
       awards=[(NP, 1929)], fields=["physics", "quantum_mechanics"], aliases=["Louis-Victor de Broglie", "de Broglie"],
       native=[("Louis de Broglie", "fr")])
person("heisenberg", "Q40904", "Werner Heisenberg", zh="维尔纳·海森堡", desc="German theoretical physicist (1901–1976)",
       born=("1901-12-05", "wuerzburg"), died=("1976-02-01", "munich"), cit=["germany"], edu=["lmu"],
       emp=["u_leipzig", "mpg"], awards=[(NP, 1932), ("planck_medal", 1933)], fields=["physics", "quantum_mechanics"],
       aliases=["Werner Karl Heisenberg", "Heisenberg"], native=[("Werner Heisenberg", "de")])
person("schroedinger", "Q9130", "Erwin Schrödinger", zh="埃尔温·薛定谔", desc="Austrian theoretical physicist (1887–1961)",
       born=("1887-08-12", "vienna"), died=("1961-01-04", "vienna"), cit=["austria"], edu=["u_vienna"],
       emp=["u_zurich", "humboldt", "u_oxford", "u_graz"], awards=[(NP, 1933), ("planck_medal", 1937)],
       fields=["physics", "quantum_mechanics"], aliases=["Erwin Schrodinger", "Schrödinger"],
       native=[("Erwin Schrödinger", "de")])
person("dirac", "Q47480", "Paul Dirac", zh="保罗·狄拉克", desc="English theoretical physicist (1902–1984)",
       born=("1902-08-08", "bristol"), died=("1984-10-20", "tallahassee"), cit=["uk"], edu=["u_bristol", "st_johns"],
       emp=["u_cambridge", "fsu"], awards=[(NP, 1933), ("copley", 1952)], fields=["physics", "quantum_mechanics", "qed"],
       aliases=["Paul Adrien Maurice Dirac", "P. A. M. Dirac"], member=["royal_society"])
person("chadwick", "Q80884", "James Chadwick", zh="詹姆斯·查德威克", desc="English physicist, discoverer of the neutron (1891–1974)",
       born=("1891-10-20", None), died=("1974-07-24", "cambridge"), cit=["uk"], edu=["victoria_manchester", "u_cambridge"],
       emp=["u_liverpool", "u_cambridge"], awards=[(NP, 1935), ("copley", 1950)], fields=PHYS,
       aliases=["Sir James Chadwick"], member=["royal_society"])
person("gp_thomson", "Q133846", "George Paget Thomson", zh="乔治·佩吉特·汤姆孙", desc="English physicist (1892–1975)",
       born=("1892-05-03", "cambridge"), died=("1975-09-10", "cambridge"), cit=["uk"], edu=["trinity"],
       emp=["u_aberdeen", "imperial"], awards=[(NP, 1937)], fields=PHYS, aliases=["G. P. Thomson", "Sir George Paget Thomson"],
       member=["royal_society"])
person("fermi", "Q8753", "Enrico Fermi", zh="恩里科·费米", desc="Italian-American physicist (1901–1954)",
       born=("1901-09-29", "rome"), died=("1954-11-28", "chicago"), cit=["italy", "usa"], edu=["u_pisa"],
       emp=["sapienza", "columbia", "u_chicago"], awards=[(NP, 1938)], fields=["physics", "particle_physics"],
       aliases=["Fermi"], native=[("Enrico Fermi", "it")])
person("lawrence", "Q169577", "Ernest Lawrence", zh="欧内斯特·劳伦斯", desc="American physicist, inventor of the cyclotron (1901–1958)",
       born=("1901-08-08", None), died=("1958-08-27", "palo_alto"), cit=["usa"], edu=["umn", "yale"],
       emp=["uc_berkeley"], awards=[(NP, 1939)], fields=PHYS, aliases=["Ernest Orlando Lawrence", "E. O. Lawrence"])
person("stern", "Q57072", "Otto Stern", zh="奥托·施特恩", desc="German-American physicist (1888–1969)",
       born=("1888-02-17", None), died=("1969-08-17", "berkeley"), cit=["germany", "usa"], edu=["u_breslau"],
       emp=["u_frankfurt", "u_hamburg", "cmu"], awards=[(NP, 1943)], fields=PHYS)
person("pauli", "Q65989", "Wolfgang Pauli", zh="沃尔夫冈·泡利", desc="Austrian-Swiss theoretical physicist (1900–1958)",
       born=("1900-04-25", "vienna"), died=("1958-12-15", "zurich"), cit=["austria", "switzerland"], edu=["lmu"],
       emp=["u_hamburg", "eth", "ias"], awards=[(NP, 1945), ("planck_medal", 1958)],
       fields=["physics", "quantum_mechanics"], aliases=["Wolfgang Ernst Pauli", "Pauli"])
person("bridgman", "Q172118", "Percy Williams Bridgman", zh="珀西·威廉斯·布里奇曼", desc="American physicist (1882–1961)",
       born=("1882-04-21", "cambridge_ma"), died=("1961-08-20", None), cit=["usa"], edu=["harvard"], emp=["harvard"],
       awards=[(NP, 1946)], fields=PHYS, aliases=["P. W. Bridgman", "Percy Bridgman"])
person("appleton", "Q153194", "Edward Victor Appleton", zh="爱德华·维克托·阿普尔顿", desc="English physicist (1892–1965)",
       born=("1892-09-06", "bradford"), died=("1965-04-21", "edinburgh"), cit=["uk"], edu=["st_johns"],
       emp=["kcl", "u_cambridge", "u_edinburgh"], awards=[(NP, 1947)], fields=PHYS,
       aliases=["Edward Appleton", "Sir Edward Appleton"], member=["royal_society"])
person("cockcroft", "Q62897", "John Cockcroft", zh="约翰·考克饶夫", desc="British physicist (1897–1967)",
       born=("1897-05-27", None), died=("1967-09-18", "cambridge"), cit=["uk"], edu=["victoria_manchester", "st_johns"],
       emp=["u_cambridge"], awards=[(NP, 1951)], fields=["physics", "particle_physics"],
       aliases=["John Douglas Cockcroft", "Sir John Cockcroft"], member=["royal_society"])
person("born", "Q58978", "Max Born", zh="马克斯·玻恩", desc="German-British theoretical physicist (1882–1970)",
       born=("1882-12-11", "wroclaw"), died=("1970-01-05", "goettingen"), cit=["germany", "uk"],
       edu=["u_breslau", "u_goettingen"], emp=["u_frankfurt", "u_goettingen", "u_edinburgh", "humboldt"],
       awards=[(NP, 1954), ("planck_medal", 1948)], fields=["physics", "quantum_mechanics"], member=["royal_society"])
person("bothe", "Q76474", "Walther Bothe", zh="瓦尔特·博特", desc="German physicist (1891–1957)",
       born=("1891-01-08", None), died=("1957-02-08", "heidelberg"), cit=["germany"], edu=["humboldt"],
       emp=["u_giessen", "u_heidelberg"], awards=[(NP, 1954)], fields=PHYS, aliases=["Walther Wilhelm Georg Bothe"])
person("lamb", "Q186497", "Willis Lamb", zh="威利斯·兰姆", desc="American physicist (1913–2008)",
       born=("1913-07-12", "los_angeles"), died=("2008-05-15", None), cit=["usa"], edu=["uc_berkeley"],
       emp=["columbia", "stanford", "u_oxford", "yale"], awards=[(NP, 1955)], fields=["physics", "qed"],
       aliases=["Willis Eugene Lamb", "Willis E. Lamb"])
person("purcell", "Q183270", "Edward Mills Purcell", zh="爱德华·珀塞尔", desc="American physicist (1912–1997)",
       born=("1912-08-30", None), died=("1997-03-07", "cambridge_ma"), cit=["usa"], edu=["purdue", "harvard"],
       emp=["harvard"], awards=[(NP, 1952)], fields=PHYS, aliases=["Edward Purcell", "E. M. Purcell"])
person("bloch", "Q123022", "Felix Bloch", zh="费利克斯·布洛赫", desc="Swiss-American physicist (1905–1983)",
       born=("1905-10-23", "zurich"), died=("1983-09-10", "zurich"), cit=["switzerland", "usa"], edu=["eth", "u_leipzig"],
       emp=["stanford", "cern"], awards=[(NP, 1952)], fields=["physics", "condensed_matter"])
person("bardeen", "Q949", "John Bardeen", zh="约翰·巴丁", desc="American physicist, twice Nobel laureate (1908–1991)",
       born=("1908-05-23", "madison"), died=("1991-01-30", "boston"), cit=["usa"], edu=["uw_madison", "princeton_u"],
       emp=["bell_labs", "uiuc"], awards=[(NP, 1956), (NP, 1972)], fields=["physics", "condensed_matter"])
person("cooper", "Q82563", "Leon Cooper", zh="利昂·库珀", desc="American physicist (1930–2024)",
       born=("1930-02-28", "new_york"), died=("2024", None), cit=["usa"], edu=["columbia"], emp=["brown"], awards=[(NP, 1972)],
       fields=["physics", "condensed_matter"], aliases=["Leon N. Cooper", "Leon Neil Cooper"])
person("cherenkov", "Q76970", "Pavel Cherenkov", de="Pawel Alexejewitsch Tscherenkow", fr="Pavel Tcherenkov", zh="帕维尔·切连科夫",
       desc="Soviet physicist (1904–1990)", born=("1904-07-28", None), died=("1990-01-06", "moscow"),
       cit=["soviet_union"], emp=["lebedev"], awards=[(NP, 1958)], fields=PHYS,
       aliases=["Pavel Alekseyevich Cherenkov", "Čerenkov"], native=[("Павел Алексеевич Черенков", "ru")])
person("ilya_frank", "Q192703", "Ilya Frank", de="Ilja Michailowitsch Frank", fr="Ilia Frank", zh="伊利亚·弗兰克",
       desc="Soviet physicist (1908–1990)", born=("1908-10-23", "saint_petersburg"), died=("1990-06-22", "moscow"),
       cit=["soviet_union"], edu=["msu"], emp=["lebedev", "msu"], awards=[(NP, 1958)], fields=PHYS,
       aliases=["Ilya Mikhailovich Frank"], native=[("Илья Михайлович Франк", "ru")])
person("hofstadter", "Q130113", "Robert Hofstadter", zh="罗伯特·霍夫施塔特", desc="American physicist (1915–1990)",
       born=("1915-02-05", "new_york"), died=("1990-11-17", None), cit=["usa"], edu=["ccny", "princeton_u"],
       emp=["stanford"], awards=[(NP, 1961)], fields=["physics", "particle_physics"])
person("landau", "Q133267", "Lev Landau", de="Lew Dawidowitsch Landau", zh="列夫·朗道", desc="Soviet theoretical physicist (1908–1968)",
       born=("1908-01-22", "baku"), died=("1968-04-01", "moscow"), cit=["soviet_union"], edu=["spbu"],
       awards=[(NP, 1962)], fields=["physics", "condensed_matter"], aliases=["Lev Davidovich Landau", "Landau"],
       native=[("Лев Давидович Ландау", "ru")])
person("wigner", "Q155790", "Eugene Wigner", de="Eugene Paul Wigner", zh="尤金·维格纳",
       desc="Hungarian-American theoretical physicist (1902–1995)", born=("1902-11-17", "budapest"),
       died=("1995-01-01", "princeton"), cit=["hungary", "usa"], edu=["tu_berlin"], emp=["princeton_u"],
       awards=[(NP, 1963)], fields=["physics", "quantum_mechanics"], aliases=["Eugene Paul Wigner", "Jenő Pál Wigner"])
person("goeppert_mayer", "Q57100", "Maria Goeppert Mayer", de="Maria Goeppert-Mayer", fr="Maria Goeppert-Mayer",
       zh="玛丽亚·格佩特-梅耶", sex="female", desc="German-born American theoretical physicist (1906–1972)",
       born=("1906-06-28", "katowice"), died=("1972-02-20", "san_diego"), cit=["germany", "usa"], edu=["u_goettingen"],
       emp=["jhu", "columbia", "u_chicago", "ucsd"], awards=[(NP, 1963)], fields=PHYS,
       aliases=["Maria Goeppert-Mayer", "Maria Göppert-Mayer"])
person("basov", "Q83557", "Nikolay Basov", de="Nikolai Gennadijewitsch Bassow", fr="Nikolaï Bassov", zh="尼古拉·巴索夫",
       desc="Soviet physicist (1922–2001)", born=("1922-12-14", None), died=("2001-07-01", "moscow"),
       cit=["soviet_union", "russia"], emp=["lebedev"], awards=[(NP, 1964)], fields=PHYS,
       aliases=["Nikolai Basov", "Nikolay Gennadiyevich Basov"], native=[("Николай Геннадиевич Басов", "ru")])
person("prokhorov", "Q83552", "Alexander Prokhorov", de="Alexander Michailowitsch Prochorow", fr="Alexandre Prokhorov",
       zh="亚历山大·普罗霍罗夫", desc="Soviet physicist (1916–2002)", born=("1916-07-11", None), died=("2002-01-08", "moscow"),
       cit=["soviet_union", "russia"], edu=["spbu"], emp=["lebedev"], awards=[(NP, 1964)], fields=PHYS,
       aliases=["Aleksandr Mikhailovich Prokhorov"], native=[("Александр Михайлович Прохоров", "ru")])
person("tomonaga", "Q184563", "Shin'ichirō Tomonaga", de="Shin’ichirō Tomonaga", fr="Sin-Itiro Tomonaga", zh="朝永振一郎",
       desc="Japanese theoretical physicist (1906–1979)", born=("1906-03-31", "tokyo"), died=("1979-07-08", "tokyo"),
       cit=["japan"], edu=["u_kyoto"], awards=[(NP, 1965)], fields=["physics", "qed"],
       aliases=["Sin-Itiro Tomonaga", "Shinichiro Tomonaga"], native=[("朝永振一郎", "ja")])
person("schwinger", "Q186465", "Julian Schwinger", zh="朱利安·施温格", desc="American theoretical physicist (1918–1994)",
       born=("1918-02-12", "new_york"), died=("1994-07-16", "los_angeles"), cit=["usa"], edu=["columbia"],
       emp=["harvard", "ucla"], awards=[(NP, 1965)], fields=["physics", "qed"], aliases=["Julian Seymour Schwinger"])
person("feynman", "Q39246", "Richard Feynman", zh="理查德·费曼", desc="American theoretical physicist (1918–1988)",
       born=("1918-05-11", "new_york"), died=("1988-02-15", "los_angeles"), cit=["usa"], edu=["mit", "princeton_u"],
       emp=["cornell", "caltech"], awards=[(NP, 1965)], fields=["physics", "qed"],
       aliases=["Richard Phillips Feynman", "Feynman", "Dick Feynman"])
person("bethe", "Q155794", "Hans Bethe", zh="汉斯·贝特", desc="German-American physicist (1906–2005)",
       born=("1906-07-02", "strasbourg"), died=("2005-03-06", "ithaca"), cit=["germany", "usa"],
       edu=["u_frankfurt", "lmu"], emp=["cornell"], awards=[(NP, 1967)], fields=["physics", "astrophysics"],
       aliases=["Hans Albrecht Bethe"])
person("gell_mann", "Q172840", "Murray Gell-Mann", zh="默里·盖尔曼", desc="American theoretical physicist (1929–2019)",
       born=("1929-09-15", "new_york"), died=("2019-05-24", "santa_fe"), cit=["usa"], edu=["yale", "mit"],
       emp=["u_chicago", "caltech"], awards=[(NP, 1969)], fields=["physics", "particle_physics"])
person("chandrasekhar", "Q148109", "Subrahmanyan Chandrasekhar", zh="苏布拉马尼扬·钱德拉塞卡",
       desc="Indian-American astrophysicist (1910–1995)", born=("1910-10-19", "lahore"), died=("1995-08-21", "chicago"),
       cit=["usa"], edu=["u_madras", "trinity"], emp=["u_chicago"], awards=[(NP, 1983), ("copley", 1984)],
       fields=["physics", "astrophysics"], aliases=["S. Chandrasekhar", "Chandra"], member=["royal_society"])
person("glashow", "Q107420", "Sheldon Glashow", zh="谢尔登·格拉肖", desc="American theoretical physicist (born 1932)",
       born=("1932-12-05", "new_york"), cit=["usa"], edu=["cornell", "harvard"], emp=["harvard", "boston_u"],
       awards=[(NP, 1979)], fields=["physics", "particle_physics"], aliases=["Sheldon Lee Glashow"])
person("weinberg", "Q179282", "Steven Weinberg", zh="史蒂文·温伯格", desc="American theoretical physicist (1933–2021)",
       born=("1933-05-03", "new_york"), died=("2021-07-23", "austin"), cit=["usa"], edu=["cornell", "princeton_u"],
       emp=["uc_berkeley", "mit", "harvard", "ut_austin"], awards=[(NP, 1979)], fields=["physics", "particle_physics"])
person("salam", "Q28189", "Abdus Salam", zh="阿卜杜勒·萨拉姆", desc="Pakistani theoretical physicist (1926–1996)",
       born=("1926-01-29", None), died=("1996-11-21", "oxford"), cit=["pakistan"], edu=["st_johns"], emp=["imperial"],
       awards=[(NP, 1979)], fields=["physics", "qft", "particle_physics"], aliases=["Mohammad Abdus Salam"],
       member=["royal_society"])
person("glauber", "Q64188", "Roy J. Glauber", zh="罗伊·格劳伯", desc="American theoretical physicist (1925–2018)",
       born=("1925-09-01", "new_york"), died=("2018-12-26", None), cit=["usa"], edu=["harvard"], emp=["harvard"],
       awards=[(NP, 2005)], fields=PHYS, aliases=["Roy Jay Glauber", "Roy Glauber"])
person("t_hooft", "Q184592", "Gerard 't Hooft", zh="赫拉尔杜斯·特霍夫特", desc="Dutch theoretical physicist (born 1946)",
       born=("1946-07-05", None), cit=["netherlands"], edu=["u_utrecht"], emp=["u_utrecht"], awards=[(NP, 1999)],
       fields=["physics", "qft"], aliases=["Gerardus 't Hooft"])
person("veltman", "Q202149", "Martinus J. G. Veltman", de="Martinus Veltman", fr="Martinus Veltman", zh="马丁纽斯·韦尔特曼",
       desc="Dutch theoretical physicist (1931–2021)", born=("1931-06-27", None), died=("2021-01-04", None),
       cit=["netherlands"], edu=["u_utrecht"], emp=["u_utrecht", "umich"], awards=[(NP, 1999)],
       fields=["physics", "particle_physics"], aliases=["Martinus Veltman", "Tini Veltman"])
person("higgs", "Q192112", "Peter Higgs", zh="彼得·希格斯", desc="British theoretical physicist (1929–2024)",
       born=("1929-05-29", "newcastle"), died=("2024-04-08", "edinburgh"), cit=["uk"], edu=["kcl"], emp=["u_edinburgh"],
       awards=[(NP, 2013)], fields=["physics", "particle_physics"], aliases=["Peter Ware Higgs"], member=["royal_society"])
person("englert", "Q151746", "François Englert", zh="弗朗索瓦·恩格勒", desc="Belgian theoretical physicist (born 1932)",
       born=("1932-11-06", None), cit=["belgium"], edu=["ulb"], emp=["ulb"], awards=[(NP, 2013)],
       fields=["physics", "particle_physics"])
person("steinberger", "Q153210", "Jack Steinberger", zh="杰克·施泰因贝格尔", desc="German-born American physicist (1921–2020)",
       born=("1921-05-25", None), died=("2020-12-12", "geneva"), cit=["usa"], edu=["u_chicago"], emp=["columbia", "cern"],
       awards=[(NP, 1988)], fields=["physics", "particle_physics"])
person("mott", "Q189485", "Nevill Francis Mott", de="Nevill Mott", fr="Nevill Mott", zh="内维尔·莫特",
       desc="English physicist (1905–1996)", born=("1905-09-30", "leeds"), died=("1996-08-08", None), cit=["uk"],
       edu=["st_johns"], emp=["u_bristol", "u_cambridge"], awards=[(NP, 1977)], fields=["physics", "condensed_matter"],
       aliases=["Nevill Mott", "Sir Nevill Mott"], member=["royal_society"])
person("van_vleck", "Q193655", "John Hasbrouck Van Vleck", zh="约翰·哈斯布鲁克·范扶累克", desc="American physicist (1899–1980)",
       born=("1899-03-13", None), died=("1980-10-27", "cambridge_ma"), cit=["usa"], edu=["uw_madison", "harvard"],
       emp=["umn", "uw_madison", "harvard"], awards=[(NP, 1977)], fields=["physics", "condensed_matter"],
       aliases=["John H. Van Vleck", "J. H. Van Vleck"])
person("pw_anderson", "Q190770", "Philip W. Anderson", zh="菲利普·沃伦·安德森", desc="American theoretical physicist (1923–2020)",
       born=("1923-12-13", "indianapolis"), died=("2020-03-29", "princeton"), cit=["usa"], edu=["harvard"],
       emp=["bell_labs", "princeton_u"], awards=[(NP, 1977)], fields=["physics", "condensed_matter"],
       aliases=["Philip Warren Anderson", "P. W. Anderson"])

# --- Chemistry laureates ---------------------------------------------------
person("rutherford", "Q9123", "Ernest Rutherford", zh="欧内斯特·卢瑟福",
       desc="New Zealand-born British physicist (1871–1937)", born=("1871-08-30", None), died=("1937-10-19", "cambridge"),
       cit=["uk"], edu=["u_canterbury", "trinity"], emp=["mcgill", "victoria_manchester", "u_cambridge"],
       awards=[(NC, 1908), ("copley", 1922)], fields=["physics", "radioactivity"],
       aliases=["Lord Rutherford", "Ernest Rutherford, 1st Baron Rutherford of Nelson", "Rutherford"],
       member=["royal_society"])
person("irene_joliot_curie", "Q7504", "Irène Joliot-Curie", zh="伊雷娜·约里奥-居里", sex="female",
       desc="French chemist and physicist (1897–1956)", born=("1897-09-12", "paris"), died=("1956-03-17", "paris"),
       cit=["france"], edu=["u_paris"], emp=["u_paris"], awards=[(NC, 1935)], fields=["chemistry", "radioactivity"],
       occ=["chemist", "physicist"], aliases=["Irène Curie"])
person("van_t_hoff", "Q102822", "Jacobus Henricus van 't Hoff", zh="雅各布斯·亨里克斯·范托夫",
       desc="Dutch physical chemist (1852–1911)", born=("1852-08-30", "rotterdam"), died=("1911-03-01", None),
       cit=["netherlands"], edu=["u_utrecht"], emp=["u_amsterdam", "humboldt"], awards=[(NC, 1901)],
       fields=["chemistry", "physical_chemistry"], occ=["chemist"], aliases=["van 't Hoff", "J. H. van 't Hoff"])
person("arrhenius", "Q80956", "Svante Arrhenius", zh="斯万特·阿伦尼乌斯", desc="Swedish physical chemist (1859–1927)",
       born=("1859-02-19", None), died=("1927-10-02", "stockholm"), cit=["sweden"], edu=["u_uppsala"],
       emp=["u_stockholm"], awards=[(NC, 1903)], fields=["chemistry", "physical_chemistry"], occ=["chemist", "physicist"],
       aliases=["Svante August Arrhenius"])
person("ramsay", "Q950726", "William Ramsay", zh="威廉·拉姆齐", desc="Scottish chemist, discoverer of the noble gases (1852–1916)",
       born=("1852-10-02", "glasgow"), died=("1916-07-23", None), cit=["uk"], edu=["u_glasgow", "u_tuebingen"],
       emp=["ucl"], awards=[(NC, 1904)], fields=CHEM, occ=["chemist"], aliases=["Sir William Ramsay"],
       member=["royal_society"])
person("baeyer", "Q57078", "Adolf von Baeyer", zh="阿道夫·冯·拜尔", desc="German organic chemist (1835–1917)",
       born=("1835-10-31", "berlin"), died=("1917-08-20", None), cit=["germany"], edu=["humboldt", "u_heidelberg"],
       emp=["lmu"], awards=[(NC, 1905)], fields=["chemistry", "organic_chemistry"], occ=["chemist"],
       aliases=["Johann Friedrich Wilhelm Adolf von Baeyer", "Adolf Baeyer"])
person("moissan", "Q102804", "Henri Moissan", zh="亨利·莫瓦桑", desc="French chemist, isolated fluorine (1852–1907)",
       born=("1852-09-28", "paris"), died=("1907-02-20", "paris"), cit=["france"], emp=["u_paris"], awards=[(NC, 1906)],
       fields=CHEM, occ=["chemist"], aliases=["Ferdinand Frédéric Henri Moissan"])
person("wallach", "Q57127", "Otto Wallach", zh="奥托·瓦拉赫", desc="German chemist (1847–1931)",
       born=("1847-03-27", "koenigsberg"), died=("1931-02-26", "goettingen"), cit=["germany"], edu=["u_goettingen"],
       emp=["u_bonn", "u_goettingen"], awards=[(NC, 1910)], fields=["chemistry", "organic_chemistry"], occ=["chemist"])
person("grignard", "Q104582", "Victor Grignard", zh="维克托·格林尼亚", desc="French chemist (1871–1935)",
       born=("1871-05-06", None), died=("1935-12-13", "lyon"), cit=["france"], awards=[(NC, 1912)],
       fields=["chemistry", "organic_chemistry"], occ=["chemist"], aliases=["François Auguste Victor Grignard"])
person("werner", "Q123014", "Alfred Werner", zh="阿尔弗雷德·维尔纳", desc="Swiss chemist (1866–1919)",
       born=("1866-12-12", "mulhouse"), died=("1919-11-15", "zurich"), cit=["switzerland"], edu=["eth"],
       emp=["u_zurich"], awards=[(NC, 1913)], fields=CHEM, occ=["chemist"])
person("haber", "Q57075", "Fritz Haber", zh="弗里茨·哈伯", desc="German chemist (1868–1934)",
       born=("1868-12-09", "wroclaw"), died=("1934-01-29", "basel"), cit=["germany"], edu=["humboldt"], emp=["kws"],
       awards=[(NC, 1918)], fields=["chemistry", "physical_chemistry"], occ=["chemist"])
person("nernst", "Q57125", "Walther Nernst", zh="瓦尔特·能斯特", desc="German physical chemist (1864–1941)",
       born=("1864-06-25", None), died=("1941-11-18", None), cit=["germany"], edu=["u_graz", "u_wuerzburg"],
       emp=["u_goettingen", "humboldt"], awards=[(NC, 1920)], fields=["chemistry", "physical_chemistry"],
       occ=["chemist", "physicist"], aliases=["Walther Hermann Nernst", "Nernst"])
person("soddy", "Q102830", "Frederick Soddy", zh="弗雷德里克·索迪", desc="English radiochemist (1877–1956)",
       born=("1877-09-02", None), died=("1956-09-22", "brighton"), cit=["uk"], edu=["u_oxford"],
       emp=["mcgill", "u_glasgow", "u_aberdeen", "u_oxford"], awards=[(NC, 1921)], fields=["chemistry", "radioactivity"],
       occ=["chemist"], member=["royal_society"])
person("pregl", "Q78482", "Fritz Pregl", zh="弗里茨·普雷格尔", desc="Austrian chemist and physician (1869–1930)",
       born=("1869-09-03", "ljubljana"), died=("1930-12-13", "graz"), cit=["austria"], edu=["u_graz"], emp=["u_graz"],
       awards=[(NC, 1923)], fields=CHEM, occ=["chemist"])
person("svedberg", "Q186391", "The Svedberg", zh="特奥多尔·斯韦德贝里", desc="Swedish chemist (1884–1971)",
       born=("1884-08-30", "valbo"), died=("1971-02-25", None), cit=["sweden"], edu=["u_uppsala"], emp=["u_uppsala"],
       awards=[(NC, 1926)], fields=["chemistry", "physical_chemistry"], occ=["chemist"],
       aliases=["Theodor Svedberg", "Theodor H. E. Svedberg"])
person("harden", "Q189803", "Arthur Harden", zh="阿瑟·哈登", desc="English biochemist (1865–1940)",
       born=("1865-10-12", "manchester"), died=("1940-06-17", None), cit=["uk"], edu=["victoria_manchester"],
       awards=[(NC, 1929)], fields=["chemistry", "biochemistry"], occ=["biochemist", "chemist"],
       aliases=["Sir Arthur Harden"], member=["royal_society"])
person("hans_fischer", "Q76604", "Hans Fischer", zh="汉斯·费歇尔", desc="German organic chemist (1881–1945)",
       born=("1881-07-27", None), died=("1945-03-31", "munich"), cit=["germany"], edu=["u_marburg"], emp=["tum"],
       awards=[(NC, 1930)], fields=["chemistry", "organic_chemistry"], occ=["chemist"])
person("bosch", "Q76606", "Carl Bosch", zh="卡尔·博施", desc="German chemist and engineer (1874–1940)",
       born=("1874-08-27", "cologne"), died=("1940-04-26", "heidelberg"), cit=["germany"], edu=["u_leipzig"],
       awards=[(NC, 1931)], fields=CHEM, occ=["chemist", "engineer"])
person("langmuir", "Q184286", "Irving Langmuir", zh="欧文·朗缪尔", desc="American chemist and physicist (1881–1957)",
       born=("1881-01-31", "brooklyn"), died=("1957-08-16", None), cit=["usa"], edu=["columbia", "u_goettingen"],
       emp=["ge"], awards=[(NC, 1932)], fields=["chemistry", "physical_chemistry"], occ=["chemist", "physicist"])
person("urey", "Q179777", "Harold Urey", zh="哈罗德·尤里", desc="American physical chemist (1893–1981)",
       born=("1893-04-29", None), died=("1981-01-05", None), cit=["usa"], edu=["uc_berkeley"],
       emp=["columbia", "u_chicago", "ucsd"], awards=[(NC, 1934)], fields=["chemistry", "physical_chemistry"],
       occ=["chemist"], aliases=["Harold Clayton Urey", "Harold C. Urey"])
person("debye", "Q103835", "Peter Debye", zh="彼得·德拜", desc="Dutch-American physicist and physical chemist (1884–1966)",
       born=("1884-03-24", "maastricht"), died=("1966-11-02", "ithaca"), cit=["netherlands", "usa"], edu=["rwth", "lmu"],
       emp=["u_zurich", "u_utrecht", "u_goettingen", "eth", "u_leipzig", "cornell"], awards=[(NC, 1936)],
       fields=["physics", "physical_chemistry"], occ=["physicist", "chemist"],
       aliases=["Peter Joseph William Debye", "Petrus Josephus Wilhelmus Debije", "Debye"])
person("karrer", "Q73093", "Paul Karrer", zh="保罗·卡雷尔", desc="Swiss organic chemist (1889–1971)",
       born=("1889-04-21", "moscow"), died=("1971-06-18", "zurich"), cit=["switzerland"], edu=["u_zurich"],
       emp=["u_zurich"], awards=[(NC, 1937)], fields=["chemistry", "organic_chemistry"], occ=["chemist"])
person("hahn", "Q57065", "Otto Hahn", zh="奥托·哈恩", desc="German chemist, discoverer of nuclear fission (1879–1968)",
       born=("1879-03-08", "frankfurt"), died=("1968-07-28", "goettingen"), cit=["germany"], edu=["u_marburg"],
       emp=["humboldt", "kws"], awards=[(NC, 1944)], fields=["chemistry", "radioactivity"], occ=["chemist"])
person("robinson", "Q49351", "Robert Robinson", zh="罗伯特·鲁滨逊", desc="British organic chemist (1886–1975)",
       born=("1886-09-13", None), died=("1975-02-08", None), cit=["uk"], edu=["victoria_manchester"],
       emp=["victoria_manchester", "u_oxford"], awards=[(NC, 1947), ("copley", 1942)],
       fields=["chemistry", "organic_chemistry"], occ=["chemist"], aliases=["Sir Robert Robinson"],
       enwiki="Robert Robinson (chemist)", member=["royal_society"])
person("pauling", "Q48983", "Linus Pauling", zh="莱纳斯·鲍林", desc="American chemist (1901–1994)",
       born=("1901-02-28", "portland"), died=("1994-08-19", None), cit=["usa"], edu=["oregon_state", "caltech"],
       emp=["caltech"], awards=[(NC, 1954), ("nobel_peace", 1962)], fields=["chemistry", "quantum_chemistry"],
       occ=["chemist"], aliases=["Linus Carl Pauling"])
person("staudinger", "Q48956", "Hermann Staudinger", zh="赫尔曼·施陶丁格", desc="German organic chemist (1881–1965)",
       born=("1881-03-23", "worms"), died=("1965-09-08", "freiburg"), cit=["germany"], edu=["u_halle"],
       emp=["eth", "u_freiburg"], awards=[(NC, 1953)], fields=["chemistry", "organic_chemistry"], occ=["chemist"])
person("sanger", "Q151564", "Frederick Sanger", zh="弗雷德里克·桑格", desc="English biochemist, twice Nobel laureate (1918–2013)",
       born=("1918-08-13", None), died=("2013-11-19", "cambridge"), cit=["uk"], edu=["st_johns"], emp=["u_cambridge"],
       awards=[(NC, 1958), (NC, 1980), ("copley", 1977)], fields=["chemistry", "biochemistry"],
       occ=["biochemist", "chemist"], aliases=["Fred Sanger"], member=["royal_society"])
person("calvin", "Q49347", "Melvin Calvin", zh="梅尔文·卡尔文", desc="American chemist (1911–1997)",
       born=("1911-04-08", "saint_paul"), died=("1997-01-08", "berkeley"), cit=["usa"], edu=["umn"], emp=["uc_berkeley"],
       awards=[(NC, 1961)], fields=["chemistry", "biochemistry"], occ=["chemist"])
person("kendrew", "Q232295", "John Kendrew", zh="约翰·肯德鲁", desc="English biochemist and crystallographer (1917–1997)",
       born=("1917-03-24", "oxford"), died=("1997-08-23", "cambridge"), cit=["uk"], edu=["trinity"], emp=["u_cambridge"],
       awards=[(NC, 1962)], fields=["chemistry", "biochemistry"], occ=["biochemist"],
       aliases=["John Cowdery Kendrew", "Sir John Kendrew"], member=["royal_society"])
person("hodgkin", "Q7487", "Dorothy Hodgkin", zh="多萝西·霍奇金", sex="female", desc="British chemist and crystallographer (1910–1994)",
       born=("1910-05-12", "cairo"), died=("1994-07-29", None), cit=["uk"], edu=["u_oxford", "u_cambridge"],
       emp=["u_oxford"], awards=[(NC, 1964), ("copley", 1976)], fields=["chemistry", "biochemistry"], occ=["chemist"],
       aliases=["Dorothy Crowfoot Hodgkin", "Dorothy Mary Crowfoot Hodgkin"], member=["royal_society"])
person("woodward", "Q232316", "Robert Burns Woodward", zh="罗伯特·伯恩斯·伍德沃德", desc="American organic chemist (1917–1979)",
       born=("1917-04-10", "boston"), died=("1979-07-08", "cambridge_ma"), cit=["usa"], edu=["mit"], emp=["harvard"],
       awards=[(NC, 1965), ("copley", 1978)], fields=["chemistry", "organic_chemistry"], occ=["chemist"],
       aliases=["R. B. Woodward", "Robert B. Woodward"])
person("prigogine", "Q183509", "Ilya Prigogine", zh="伊利亚·普里高津", desc="Belgian physical chemist (1917–2003)",
       born=("1917-01-25", "moscow"), died=("2003-05-28", "brussels"), cit=["belgium"], edu=["ulb"],
       emp=["ulb", "ut_austin"], awards=[(NC, 1977)], fields=["chemistry", "physical_chemistry"],
       occ=["chemist", "physicist"])
person("pople", "Q233973", "John Pople", zh="约翰·波普尔", desc="British theoretical chemist (1925–2004)",
       born=("1925-10-31", None), died=("2004-03-15", "chicago"), cit=["uk"], edu=["trinity"],
       emp=["cmu", "northwestern"], awards=[(NC, 1998)], fields=["chemistry", "quantum_chemistry"], occ=["chemist"],
       aliases=["John Anthony Pople", "Sir John Pople"], member=["royal_society"])
person("curl", "Q110930", "Robert Curl", zh="罗伯特·柯尔", desc="American chemist (1933–2022)",
       born=("1933-08-23", None), died=("2022", None), cit=["usa"], edu=["rice", "uc_berkeley"], emp=["rice"],
       awards=[(NC, 1996)], fields=CHEM, occ=["chemist"], aliases=["Robert Floyd Curl", "Robert F. Curl Jr."])
person("smalley", "Q106746", "Richard Smalley", zh="理查德·斯莫利", desc="American chemist (1943–2005)",
       born=("1943-06-06", None), died=("2005-10-28", "houston"), cit=["usa"], edu=["umich", "princeton_u"],
       emp=["rice"], awards=[(NC, 1996)], fields=CHEM, occ=["chemist"], aliases=["Richard Errett Smalley", "Richard E. Smalley"])
person("zewail", "Q106624", "Ahmed Zewail", zh="艾哈迈德·泽维尔", desc="Egyptian-American chemist (1946–2016)",
       born=("1946-02-26", None), died=("2016-08-02", "pasadena"), cit=["egypt", "usa"], edu=["u_alexandria", "upenn"],
       emp=["caltech"], awards=[(NC, 1999)], fields=["chemistry", "physical_chemistry"], occ=["chemist"],
       aliases=["Ahmed Hassan Zewail"], native=[("أحمد زويل", "ar")])
person("ertl", "Q60066", "Gerhard Ertl", zh="格哈德·埃特尔", desc="German physical chemist (born 1936)",
       born=("1936-10-10", "stuttgart"), cit=["germany"], edu=["tum"], emp=["mpg"], awards=[(NC, 2007)],
       fields=["chemistry", "physical_chemistry"], occ=["chemist"])
person("yonath", "Q7426", "Ada Yonath", zh="阿达·约纳特", sex="female", desc="Israeli crystallographer (born 1939)",
       born=("1939-06-22", "jerusalem"), cit=["israel"], edu=["hebrew_u"], awards=[(NC, 2009)],
       fields=["chemistry", "biochemistry"], occ=["chemist"], aliases=["Ada E. Yonath"], native=[("עדה יונת", "he")])
person("arnold", "Q4273363", "Frances Arnold", zh="弗朗西丝·阿诺德", sex="female", desc="American chemical engineer (born 1956)",
       born=("1956-07-25", "pittsburgh"), cit=["usa"], edu=["princeton_u", "uc_berkeley"], emp=["caltech"],
       awards=[(NC, 2018)], fields=["chemistry", "biochemistry"], occ=["chemist", "engineer"],
       aliases=["Frances Hamilton Arnold", "Frances H. Arnold"])

# --- Teachers and colleagues who are not Nobel laureates in physics or chemistry ---
person("sommerfeld", "Q77078", "Arnold Sommerfeld", zh="阿诺·索末菲", desc="German theoretical physicist (1868–1951)",
       born=("1868-12-05", "koenigsberg"), died=("1951-04-26", "munich"), cit=["germany"], emp=["rwth", "lmu"],
       awards=[("planck_medal", 1931)], fields=["physics", "quantum_mechanics"],
       aliases=["Arnold Johannes Wilhelm Sommerfeld"])
person("helmholtz", "Q60024", "Hermann von Helmholtz", zh="赫尔曼·冯·亥姆霍兹", desc="German physicist and physician (1821–1894)",
       born=("1821-08-31", "potsdam"), died=("1894-09-08", None), cit=["germany"], emp=["u_bonn", "u_heidelberg", "humboldt"],
       awards=[("copley", 1873)], fields=["physics", "physiology"], occ=["physicist"],
       aliases=["Hermann Ludwig Ferdinand von Helmholtz", "Helmholtz"])
person("meitner", "Q56189", "Lise Meitner", zh="莉泽·迈特纳", sex="female", desc="Austrian-Swedish physicist (1878–1968)",
       born=("1878-11-07", "vienna"), died=("1968-10-27", "cambridge"), cit=["austria", "sweden"], edu=["u_vienna"],
       emp=["humboldt", "kws"], fields=["physics", "radioactivity"], aliases=["Elise Meitner"])
person("teller", "Q6733", "Edward Teller", zh="爱德华·泰勒", desc="Hungarian-American theoretical physicist (1908–2003)",
       born=("1908-01-15", "budapest"), died=("2003-09-09", None), cit=["hungary", "usa"], edu=["u_leipzig"],
       emp=["u_chicago", "gwu", "uc_berkeley"], fields=PHYS)
person("wheeler", "Q202631", "John Archibald Wheeler", zh="约翰·阿奇博尔德·惠勒", desc="American theoretical physicist (1911–2008)",
       born=("1911-07-09", "jacksonville"), died=("2008-04-13", None), cit=["usa"], edu=["jhu"],
       emp=["princeton_u", "ut_austin"], fields=PHYS, aliases=["John Wheeler", "J. A. Wheeler"], member=["royal_society"])
person("oppenheimer", "Q132537", "J. Robert Oppenheimer", zh="罗伯特·奥本海默", desc="American theoretical physicist (1904–1967)",
       born=("1904-04-22", "new_york"), died=("1967-02-18", "princeton"), cit=["usa"], edu=["harvard", "u_goettingen"],
       emp=["uc_berkeley", "caltech", "ias"], fields=PHYS, aliases=["Robert Oppenheimer", "Oppenheimer"])
person("gn_lewis", "Q208858", "Gilbert N. Lewis", zh="吉尔伯特·牛顿·路易斯", desc="American physical chemist (1875–1946)",
       born=("1875-10-23", None), died=("1946-03-23", "berkeley"), cit=["usa"], edu=["harvard"], emp=["mit", "uc_berkeley"],
       fields=["chemistry", "physical_chemistry"], occ=["chemist"], aliases=["Gilbert Newton Lewis"],
       member=["royal_society"])
person("alfred_nobel", "Q23810", "Alfred Nobel", zh="阿尔弗雷德·诺贝尔", desc="Swedish chemist, engineer and inventor (1833–1896)",
       born=("1833-10-21", "stockholm"), died=("1896-12-10", "sanremo"), cit=["sweden"], fields=CHEM,
       occ=["chemist", "engineer", "inventor"], aliases=["Alfred Bernhard Nobel"])

# Doctoral advisor links (student, advisor).  "doctoral student" statements are
# written as the inverse of these.
ADVISORS = [
    ("heisenberg", "sommerfeld"), ("pauli", "sommerfeld"), ("debye", "sommerfeld"), ("bethe", "sommerfeld"),
    ("bloch", "heisenberg"), ("teller", "heisenberg"),
    ("bothe", "planck"),
    ("goeppert_mayer", "born"), ("oppenheimer", "born"),
    ("lamb", "oppenheimer"),
    ("wien", "helmholtz"),
    ("rutherford", "jj_thomson"),
    ("chadwick", "rutherford"), ("cockcroft", "rutherford"),
    ("steinberger", "fermi"),
    ("bardeen", "wigner"),
    ("feynman", "wheeler"),
    ("glashow", "schwinger"), ("glauber", "schwinger"),
    ("t_hooft", "veltman"),
    ("pw_anderson", "van_vleck"),
    ("langmuir", "nernst"),
    ("urey", "gn_lewis"),
    ("karrer", "werner"),
]

# Family links.
SPOUSES = [("pierre_curie", "marie_curie")]
PARENTS = [  # (child, father, mother)
    ("irene_joliot_curie", "pierre_curie", "marie_curie"),
    ("wl_bragg", "wh_bragg", None),
    ("gp_thomson", "jj_thomson", None),
    ("kai_siegbahn", "manne_siegbahn", None),
]
NUMBER_OF_CHILDREN = {"marie_curie": 2, "pierre_curie": 2, "bohr": 6}

# English aliases for places and organisations (people carry theirs in their rows).
EXTRA_ALIASES = {
    "Q47265": ["Palo Alto, California"],
    "Q457281": ["UIUC", "University of Illinois"],
}



# fmt: on

# ===========================================================================
# Writer
# ===========================================================================


def _canon(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _numeric(eid: str) -> int:
    return int(eid[1:])


class Builder:
    """Collects entities and statements and renders Wikidata dump JSON."""

    def __init__(self) -> None:
        self.keys: dict[str, str] = {}  # table key -> entity id
        self.items: dict[str, dict] = {}  # entity id -> entity dict
        self.datatypes = {pid: dt for pid, dt, *_ in PROPERTIES}

    # -- entities ---------------------------------------------------------
    def register(self, key: str, eid: str) -> None:
        if key in self.keys and self.keys[key] != eid:
            raise ValueError(f"key {key!r} is used for both {self.keys[key]} and {eid}")
        if eid in self.items:
            raise ValueError(f"{eid} is defined twice (key {key!r})")
        self.keys[key] = eid

    def qid(self, key: str) -> str:
        try:
            return self.keys[key]
        except KeyError:
            raise KeyError(
                f"unknown table key {key!r}: add it to one of the tables"
            ) from None

    def item(
        self, key: str, qid: str, labels: Sequence[str | None], description: str, *,
        aliases: Iterable[str] = (), enwiki: str | None = None
    ) -> dict:
        self.register(key, qid)
        en = labels[0]
        alias_list = [a for a in [*aliases, *EXTRA_ALIASES.get(qid, ())] if a != en]
        entity = {
            "type": "item",
            "id": qid,
            "labels": {
                lang: {"language": lang, "value": v}
                for lang, v in zip(LANGS, (en,) + tuple(labels[1:]))
                if v
            },
            "descriptions": {"en": {"language": "en", "value": description}}
            if description
            else {},
            "aliases": {
                "en": [
                    {"language": "en", "value": a} for a in dict.fromkeys(alias_list)
                ]
            }
            if alias_list
            else {},
            "claims": {},
            "sitelinks": {"enwiki": {"site": "enwiki", "title": enwiki, "badges": []}}
            if enwiki
            else {},
        }
        self.items[qid] = entity
        return entity

    def prop(self, pid: str, datatype: str, labels: Sequence[str], description: str,
             aliases: Sequence[str]) -> None:
        self.register(pid, pid)
        de, fr, zh = PROPERTY_DESCRIPTIONS[pid]
        self.items[pid] = {
            "type": "property",
            "datatype": datatype,
            "id": pid,
            "labels": {
                lang: {"language": lang, "value": v} for lang, v in zip(LANGS, labels)
            },
            "descriptions": {
                lang: {"language": lang, "value": v}
                for lang, v in zip(LANGS, (description, de, fr, zh))
            },
            "aliases": {"en": [{"language": "en", "value": a} for a in aliases]}
            if aliases
            else {},
            "claims": {},
        }

    # -- values -----------------------------------------------------------
    @staticmethod
    def item_value(qid: str) -> dict:
        return {
            "value": {"entity-type": "item", "numeric-id": _numeric(qid), "id": qid},
            "type": "wikibase-entityid",
        }

    @staticmethod
    def time_value(date: str | int) -> dict:
        date = str(date)
        if len(date) == 4:
            time, precision = f"+{date}-00-00T00:00:00Z", 9
        elif len(date) == 10:
            time, precision = f"+{date}T00:00:00Z", 11
        else:
            raise ValueError(f"date {date!r}: expected YYYY or YYYY-MM-DD")
        return {
            "value": {
                "time": time,
                "timezone": 0,
                "before": 0,
                "after": 0,
                "precision": precision,
                "calendarmodel": GREGORIAN,
            },
            "type": "time",
        }

    @staticmethod
    def string_value(text: str) -> dict:
        return {"value": text, "type": "string"}

    @staticmethod
    def monolingual_value(text: str, lang: str) -> dict:
        return {"value": {"text": text, "language": lang}, "type": "monolingualtext"}

    @staticmethod
    def quantity_value(amount: int) -> dict:
        return {"value": {"amount": f"+{amount}", "unit": "1"}, "type": "quantity"}

    def snak(self, pid: str, datavalue: dict, *, with_hash: bool = False) -> dict:
        snak: dict[str, Any] = {"snaktype": "value", "property": pid}
        if with_hash:
            snak["hash"] = hashlib.sha1(_canon([pid, datavalue]).encode()).hexdigest()
        snak["datavalue"] = datavalue
        snak["datatype"] = self.datatypes[pid]
        return snak

    # -- statements -------------------------------------------------------
    def add(
        self,
        subject_key: str,
        pid: str,
        datavalue: dict,
        *,
        qualifiers: Sequence[tuple[str, dict]] = (),
        references: Iterable[Iterable[tuple[str, dict]]] = (),
        rank: str = "normal",
    ) -> None:
        subject = self.qid(subject_key) if subject_key in self.keys else subject_key
        if pid not in self.datatypes:
            raise KeyError(f"{pid} is used but not declared in PROPERTIES")
        statement = {"mainsnak": self.snak(pid, datavalue), "type": "statement"}
        qual_snaks: dict[str, list] = {}
        for qpid, qvalue in qualifiers:
            qual_snaks.setdefault(qpid, []).append(
                self.snak(qpid, qvalue, with_hash=True)
            )
        if qual_snaks:
            statement["qualifiers"] = qual_snaks
            statement["qualifiers-order"] = list(qual_snaks)
        seed = _canon([subject, pid, datavalue, [[q, v] for q, v in qualifiers]])
        statement["id"] = f"{subject}${uuid.uuid5(STATEMENT_NS, seed)}"
        statement["rank"] = rank
        if references:
            refs = []
            for ref in references:
                snaks: dict[str, list] = {}
                for rpid, rvalue in ref:
                    snaks.setdefault(rpid, []).append(self.snak(rpid, rvalue))
                refs.append(
                    {
                        "hash": hashlib.sha1(_canon(snaks).encode()).hexdigest(),
                        "snaks": snaks,
                        "snaks-order": list(snaks),
                    }
                )
            statement["references"] = refs
        claims = self.items[subject]["claims"]
        if any(s["id"] == statement["id"] for s in claims.get(pid, [])):
            raise ValueError(f"duplicate statement {subject} {pid} {datavalue}")
        claims.setdefault(pid, []).append(statement)

    def link(self, subject_key: str, pid: str, object_key: str, **kw: Any) -> None:
        self.add(subject_key, pid, self.item_value(self.qid(object_key)), **kw)

    # -- output -----------------------------------------------------------
    def check_closed(self) -> None:
        """Every item value (main snak or qualifier) must be an entity in the file."""
        missing = set()
        for entity in self.items.values():
            for statements in entity["claims"].values():
                for st in statements:
                    snaks = [st["mainsnak"]] + [
                        s for qs in st.get("qualifiers", {}).values() for s in qs
                    ]
                    for s in snaks:
                        if s["property"] not in self.items:
                            missing.add(s["property"])
                        v = s.get("datavalue", {})
                        if (
                            v.get("type") == "wikibase-entityid"
                            and v["value"]["id"] not in self.items
                        ):
                            missing.add(v["value"]["id"])
        if missing:
            raise ValueError(f"dangling references: {sorted(missing)}")

    def render(self) -> str:
        self.check_closed()
        ordered = sorted(
            self.items.values(),
            key=lambda e: (e["type"] != "property", _numeric(e["id"])),
        )
        lines = []
        for entity in ordered:
            entity["claims"] = {
                pid: entity["claims"][pid]
                for pid in sorted(entity["claims"], key=_numeric)
            }
            lines.append(json.dumps(entity, ensure_ascii=False, separators=(",", ":")))
        return "[\n" + ",\n".join(lines) + "\n]\n"


def build() -> str:
    """The demo dump's text: every property, then every entity (so that every key is
    known), then the statements, table by table, in a fixed order."""
    b = Builder()
    for pid, datatype, labels, description, aliases in PROPERTIES:
        b.prop(pid, datatype, labels, description, aliases)
    _add_items(b)
    _link_classes(b)
    _link_countries(b)
    _link_cities(b)
    _link_organisations(b)
    _link_awards(b)
    for p in PEOPLE:
        _link_person(b, p)
    _link_relatives(b)
    return b.render()


def _add_items(b: Builder) -> None:
    """Every entity of the tables, with its labels, description, aliases and sitelink."""
    # loop variables the tables share, some with a None where others have none
    labels: Sequence[str | None]
    for key, qid, labels, desc, _claims, enwiki in CLASSES:
        b.item(key, qid, labels, desc, enwiki=enwiki)
    for key, qid, labels, desc, _sub, enwiki in OCCUPATIONS:
        b.item(key, qid, labels, desc, enwiki=enwiki)
    for key, qid, labels, desc, _claims, enwiki in FIELDS:
        b.item(key, qid, labels, desc, enwiki=enwiki)
    for key, qid, labels, desc, _capital, _names, enwiki in COUNTRIES:
        b.item(key, qid, labels, desc, enwiki=enwiki)
    for key, qid, labels, _country, desc, enwiki in CITIES:
        b.item(key, qid, labels, desc, enwiki=enwiki)
    for key, qid, labels, cls, country, city, _year, enwiki in ORGS:
        b.item(key, qid, labels, _org_description(key, cls, country, city), enwiki=enwiki)
    for key, qid, labels, desc, _cls, _by, _part, _named, enwiki in AWARDS:
        b.item(
            key, qid, labels, desc, aliases=AWARD_ALIASES.get(key, ()), enwiki=enwiki
        )
    for p in PEOPLE:
        b.item(
            p["key"],
            p["qid"],
            p["labels"],
            p["desc"],
            aliases=p["aliases"],
            enwiki=p["enwiki"],
        )


def _org_description(key: str, cls: str, country: str | None, city: str | None) -> str:
    """An organisation's English description: its kind, and its city and country."""
    where = ", ".join(
        x
        for x in (
            next((c[2][0] for c in CITIES if c[0] == city), None),
            next((c[2][0] for c in COUNTRIES if c[0] == country), None),
        )
        if x
    )
    kind = {
        "university": "university",
        "cam_college": "college of the University of Cambridge",
        "research_institute": "research institute",
        "organization": "organization",
        "intl_org": "international research organization",
        "business": "company",
    }[cls]
    desc = f"{kind} in {where}" if where else kind
    if key == "cern":
        desc = "European research organization operating the largest particle physics laboratory"
    return desc


def _link_classes(b: Builder) -> None:
    """The statements of classes, occupations and fields."""
    # Classes, occupations, fields.
    for key, _qid, _labels, _desc, claims, _wiki in CLASSES + FIELDS:
        for pid, obj in claims:
            b.link(key, pid, obj)
    for key, _qid, _labels, _desc, sub, _wiki in OCCUPATIONS:
        b.link(key, "P31", "profession" if key not in ("inventor",) else "occupation")
        if sub:
            b.link(key, "P279", sub)


def _link_countries(b: Builder) -> None:
    """The statements of countries (Germany's capitals with their dates)."""
    # Countries.
    for key, _qid, _labels, _desc, capital, names, _wiki in COUNTRIES:
        b.link(key, "P31", "country")
        if key == "germany":
            for city, rank, start, end in GERMANY_CAPITALS:
                quals = [("P580", b.time_value(start))] + (
                    [("P582", b.time_value(end))] if end else []
                )
                b.link(key, "P36", city, qualifiers=quals, rank=rank)
        else:
            b.link(key, "P36", capital)
        for text, lang in names:
            b.add(key, "P1448", b.monolingual_value(text, lang))


def _link_cities(b: Builder) -> None:
    """The statements of cities."""
    # Cities.
    for key, _qid, _labels, country, _desc, _wiki in CITIES:
        b.link(key, "P31", "city")
        if key in CAPITALS:
            b.link(key, "P31", "capital")
        if country:
            b.link(key, "P17", country)
    b.link("brooklyn", "P131", "new_york")


def _link_organisations(b: Builder) -> None:
    """The statements of organisations, their parts and websites."""
    # Organisations.
    for key, _qid, _labels, cls, country, city, year, _wiki in ORGS:
        b.link(key, "P31", cls)
        if country:
            b.link(key, "P17", country)
        if city:
            b.link(key, "P131", city)
        if year:
            b.add(key, "P571", b.time_value(year))
    for part, whole in PARTS:
        b.link(part, "P361", whole)
    for key, url in WEBSITES:
        b.add(key, "P856", b.string_value(url))


def _link_awards(b: Builder) -> None:
    """The statements of awards."""
    # Awards.
    for key, _qid, _labels, _desc, classes, by, part, named, _wiki in AWARDS:
        for cls in classes:
            b.link(key, "P31", cls)
        if by:
            b.link(key, "P1027", by)
        if part:
            b.link(key, "P361", part)
        if named:
            b.link(key, "P138", named)


def _link_person(b: Builder, p: dict[str, Any]) -> None:
    """The statements of one person (``PEOPLE``)."""
    k = p["key"]
    b.link(k, "P31", "human")
    b.link(k, "P21", p["sex"])
    for c in p["cit"]:
        b.link(k, "P27", c)
    if p["born"]:
        date, place = p["born"]
        b.add(k, "P569", b.time_value(date))
        if place:
            b.link(k, "P19", place)
    if p["died"]:
        date, place = p["died"]
        b.add(k, "P570", b.time_value(date))
        if place:
            b.link(k, "P20", place)
    for org in p["edu"]:
        b.link(k, "P69", org)
    for org in p["emp"]:
        b.link(k, "P108", org)
    for award, year in p["awards"]:
        refs: tuple[list[tuple[str, dict]], ...] = ()
        if award in NOBEL_URL_CATEGORY:
            url = f"https://www.nobelprize.org/prizes/{NOBEL_URL_CATEGORY[award]}/{year}/summary/"
            refs = ([("P854", b.string_value(url))],)
        b.link(
            k,
            "P166",
            award,
            qualifiers=[("P585", b.time_value(year))],
            references=refs,
        )
    for f in p["fields"]:
        b.link(k, "P101", f)
    for o in p["occ"]:
        b.link(k, "P106", o)
    for text, lang in p["native"]:
        b.add(k, "P1559", b.monolingual_value(text, lang))
    for org in p["member"]:
        b.link(k, "P463", org)


def _link_relatives(b: Builder) -> None:
    """Advisors, spouses, parents and children, both ways."""
    for student, advisor in ADVISORS:
        b.link(student, "P184", advisor)
        b.link(advisor, "P185", student)
    for a, c in SPOUSES:
        b.link(a, "P26", c)
        b.link(c, "P26", a)
    for child, father, mother in PARENTS:
        for parent, pid in ((father, "P22"), (mother, "P25")):
            if parent:
                b.link(child, pid, parent)
                b.link(parent, "P40", child)
    for k, n in NUMBER_OF_CHILDREN.items():
        b.add(k, "P1971", b.quantity_value(n))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the JSON file is not up to date"
    )
    parser.add_argument(
        "--output", type=Path, default=OUT, help=f"where to write (default: {OUT.name})"
    )
    args = parser.parse_args(argv)
    text = build()
    if args.check:
        current = (
            args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        )
        if current != text:
            print(
                f"{args.output} is out of date; run: python {Path(__file__).name}",
                file=sys.stderr,
            )
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    n_entities = text.count("\n") - 2
    print(f"wrote {args.output} ({n_entities} entities)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
