"""Rule-based query generation: no LLM, so factoid questions are answered offline.

``RuleGenerator(kb, linker).generate(question)`` reads the question
(``querygen.analysis``), finds its entity mentions (``querygen.mentions``), and searches the
KB for the properties that connect a linked entity to an answer and fit the question's
relation words (``querygen.fit``). The KB decides between readings: only properties an
entity actually has (as subject, or as value for the inverse reading) are considered, so
"Cake" the band and "cake" the food are told apart by what they have, and a chain is only
proposed where the KB holds one.

Readings, each a ``QueryPlan`` with a score (entity link + property fit, summed):

- **one hop**: ``(s, p, ?)`` or ``(?, p, o)`` triplet queries;
- **chains** (the relation words split into pieces: "the capital of the country where X
  was born" → born | country | capital): ``X P19 ?a . ?a P17 ?b . ?b P36 ?x``, up to three
  hops, each hop's property fitting its piece, following statements the KB holds;
- **counts** ("how many"): ``COUNT(DISTINCT ?x)`` over a reading, or a quantity property
  ("number of children") read directly;
- **yes/no**: ASK over the two entities with a property that links them (directly or
  through one intermediate), else with the best-fitting property (the answer is then
  no); "Is X a Y?" asks whatever property links X to the class or value Y (P31, P106, …);
- **pairs** ("How are X and Y related?"): ``(s, ?, o)``;
- **type constraints** ("which N", "how many N"): ``?x wdt:P31 C`` added to a reading when
  the KB types some of its answers as C (the noun's entity) and the constraint filters;
- **superlatives** ("the oldest", "born first", "the most recent"): a reading (or the
  members of the class the question names) ordered by a date or quantity property the
  answers have, ``LIMIT 1``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace

from kb.base import KnowledgeBase
from kb.contracts import Linker
from kb.types import Candidate
from linking.lexicon import STOPWORDS
from linking.mentions import ARTICLES, qualified_only
from querygen.analysis import (WH_WORDS, Analysis, Word, analyze, expand_contractions,
                               known_word, only_verb, parts_of_speech, respelled)
from querygen.answer_types import PLACE, THING, TypeOracle, kind_of_words, place_level
from querygen.direction import FORWARD, INVERSE, asked_by_verb, asked_direction
from querygen.fit import (MIN_PROPERTY, SUBCLASS_PROPERTY, TYPE_PROPERTY, RelationFit, chunks,
                          content, norm_words, root)
from querygen.languages import Glossed, base_language, gloss
from querygen.lexicon import (ANY_PERSON_NOUNS, AUXILIARIES, CONTAINMENT_WORDS, DESCRIPTION_ENDS,
                              GENERIC_RELATION_WORDS, PERSON_NOUNS, PLACE_NOUNS, RELATED,
                              ROLE_NOUNS)
from querygen.mentions import (ENTITY_CANDIDATES, KINDS_OF_PLACE, Mention, MentionFinder,
                               uncased)
from querygen.plan import Edge, Path, QueryPlan, Var
from querygen.solve import Unsolvable, solve
from querygen.types import GeneratedQuery, LinkingDecision
from store.normalize import normalize

#: the score of an exact match with a property's name that makes a word that name
PROPERTY_NAME_SCORE = 0.9
#: the score of a match with the words of a property's name from which a word may be one
#: of them ("birth" in "place of birth")
PROPERTY_WORD_SCORE = 0.5
#: a best plan scoring below this sends the generator looking for names the detector missed
#: (an exact entity name scores about 1.2, a property that names the relation about 0.8)
WEAK_PLAN = 1.9
#: the class whose members a noun before their name describes, whatever the KB says of
#: their occupations ("the Indonesian president Suharto")
PERSON_CLASS = "human"
#: the inverse reading (the entity is the value) needs to fit better to win
INVERSE_PENALTY = 0.05
#: how well "the members of a category" answers a question that names no property, and
#: how much an indefinite article before the category ("a poet") adds; categories with
#: fewer members than MIN_MEMBERS are not offered
MEMBER_FIT, INDEFINITE_FIT, MIN_MEMBERS = 0.45, 0.35, 2
#: how much "the R of X" says about the direction of R
DIRECTION_FIT = 0.15
#: a reading the KB holds no statement for (offered because the question asks it that
#: way) ranks below a held reading that fits nearly as well ("In which language is X
#: written?": X's "language of work", not the "languages written" a person has)
ABSENT_PENALTY = 0.5
#: a property whose fit reaches this is named outright by the relation words (an exact
#: label or alias covering every content word scores about 1.5)
NAMED_FIT = 1.3
#: the end of the note of a reading whose property the entity has in neither role: it
#: is offered only when no reading the KB holds fits the relation words nearly as well
NOT_HELD = " (held neither way)"
#: statements sampled to tell a symmetric property, and the share held both ways
SYMMETRY_SAMPLE, SYMMETRY_SHARE = 40, 0.1
#: a reading whose direction the syntax sets names the relation from this fit on
ASKED_FIT = 1.0
#: a one-hop reading along a property the entity has, fitting the relation words at all
#: (the fit's own floor), is preferred to a property the entity has neither way:
#: "Which landmass is X part of?" asks X's continent when X has no "part of"
HELD_FIT = MIN_PROPERTY
#: the note of a one-hop reading whose property the relation words name outright (fit
#: NAMED_FIT, or ASKED_FIT with the direction the syntax asks): when it finds nothing,
#: the KB has no answer (``reasoning`` then answers none, not a chain's)
NAMES_RELATION = "names the relation"
#: once a reading names the relation outright, readings whose relation fit is this much
#: lower are not offered: they answer another question
FIT_GAP = 0.6
#: how much better a quantity property ("number of children") answers "how many" than a
#: count of statements does
QUANTITY_FIT = 0.5
#: per hop beyond the first: a chain must explain more words than one hop to win
CHAIN_PENALTY = 0.15
#: the most properties a chain follows
CHAIN_HOPS = 3
#: values followed per hop when a chain is searched
CHAIN_FANOUT = 25
#: plans kept per reading before the next step (chains, constraints) builds on them
BEAM = 8
#: a chain's hop must fit its piece of the words this well ("government" is no sister city)
MIN_HOP_FIT = 0.5
#: the fit of a hop that only the class of the node it reaches names ("X's band")
CLASS_HOP_FIT = 0.6
#: a class names such a hop from at most this many entities (each property is sampled)
CLASS_HOP_FROM = 3
#: entities of a chain's node whose classes are read to tell what the node is
CLASS_SAMPLE = 5
#: how many of a mention's candidates a noun describing it ("the film E.T.") may bring first
DESCRIBED_CANDIDATES = 5
#: the relation fit of a property that says where its subject lies, for a question whose
#: only relation is "where" (no word names it)
WHERE_FIT = 1.0
#: readings a type constraint is tried on
CONSTRAINED = 2
#: bonus of a reading whose type constraint the KB confirms
CONSTRAINT_BONUS = 0.1
#: readings whose answers are checked for being places ("where", "which city"), and how
#: much all (none) being places adds (takes away)
PLACE_CHECKED, PLACE_FIT = 6, 0.25
#: Wikidata properties that only places have (located in, country, continent, borders,
#: coordinates, capital, …) or that only places are the value of (born in, headquarters, …)
PLACE_OUT = frozenset("P17 P131 P30 P625 P47 P36 P706 P1376 P150 P190 P37 P276".split())
PLACE_IN = frozenset("P19 P20 P131 P17 P159 P740 P276 P937 P551 P36 P1376 P47".split())
#: Wikidata properties that say where something lies: a yes/no question about a place
#: holds through them ("born in Germany": born in Ulm, which lies in Germany)
CONTAINMENT = frozenset("P131 P17 P30 P361 P276 P706".split())
#: how well "one of the entities named" fits a comparative ("X or Y?") before ordering
CHOICE_FIT = 0.5
#: bonus of a yes/no reading whose statement the KB holds
ASK_TRUE_BONUS = 0.3


class RuleGenerator:
    """Question → queries by rules over one KB (see the module docstring). Thread-safe."""

    def __init__(self, kb: KnowledgeBase, linker: Linker):
        self.kb = kb
        self.linker = linker
        self.props = linker.properties
        self.types = TypeOracle(kb, linker)
        self.fit = RelationFit(kb, linker.properties)
        self.finder = MentionFinder(kb, linker, says_where=self.fit.says_where)
        self._lock = threading.Lock()
        self._member_cache: dict[str, tuple[str, int] | None] = {}
        self._held_back_cache: dict[tuple[str, str, int], tuple[int, int]] = {}

    # -- entry --------------------------------------------------------------------------------
    def generate(self, question: str, *, limit: int = 5, lang: str = "en"
                 ) -> list[GeneratedQuery]:
        """Queries for ``question`` (in ``lang``), best first (at most ``limit``); empty
        when no entity of the question could be linked or no property fits, and for a
        negated question ("Who did not …?") other than yes/no: what does not hold is no
        query's answer."""
        _, _, plans = self.candidates(question, lang=lang)
        out: list[GeneratedQuery] = []
        seen: set[str] = set()
        for plan in plans:
            if plan.notes[:1] and plan.notes[0].startswith("chain") and self._circular(plan):
                continue
            q = plan.generated(question)
            if q.grounded not in seen:
                seen.add(q.grounded)
                out.append(q)
            if len(out) >= limit:
                break
        return out

    def candidates(self, question: str, *, lang: str = "en"
                   ) -> tuple[Analysis, list[Mention], list[QueryPlan]]:
        """The analysis of ``question`` (read into English first when ``lang`` is another
        language, ``gloss``; contractions expanded, misspelled relation words mended,
        ``respelled``: offsets index that text), the entity
        mentions found, and every reading, best first (chains not yet checked for
        circularity). No readings for a negated question other than yes/no."""
        text = expand_contractions(self.gloss(question.strip(), lang).text)
        if base_language(lang) == "en":
            text = respelled(text, self.fit.vocabulary, self._in_a_name)
        a = analyze(text)
        if a.negated and a.form != "ask":
            return a, [], []       # what does not hold: no triplet query lists it
        # a question in lower case marks no name: its word runs are looked up as names too
        mentions = self.finder.find(text, a, gaps=uncased(text), lang=base_language(lang),
                                    common=self._common_word)
        mentions = [self._relation_of_name(a, m, lang, uncased(text)) for m in mentions]
        a, mentions = _located_as_frame(*self._with_class_nouns(a, mentions))
        a = _relative_place_head(a)
        a = self._people_of_place(a, mentions)
        a = self._class_after_category(a, mentions)
        a, mentions = self._head_as_class(a, mentions)
        plans = self.plans(a, mentions)
        if not plans or max(p.score for p in plans) < WEAK_PLAN:
            more = self.finder.find(text, a, gaps=True, lang=base_language(lang))
            more = [m for m in more if not _describes_unknown_name(a, m, more)]
            plans += self.plans(a, more)
            mentions = mentions + [m for m in more if m.span not in {x.span for x in mentions}]
        plans = _named_relation_only(plans, a)
        plans.sort(key=lambda p: -p.score)
        if a.answer_type == "place" and a.form == "select":
            plans = self._place_check(plans)
        return a, mentions, plans

    def _relation_of_name(self, a: Analysis, m: Mention, lang: str, uncased: bool) -> Mention:
        """``m``, or where it is written "<a property's word> of <a name>" in lower case
        up to the name ("capital of Malta", which the KB has as Valletta's alias) and the
        question asks for it alone ("What is the capital of Malta?"), the name alone: the
        question asks the relation of it, which the KB states. Not where other words ask
        something of it ("In which city are the headquarters of the UN?"). The name is
        capitalized unless the question has no capitals (``uncased``): "head of
        government" stays whole."""
        found = _RELATION_OF.match(m.text)
        if found is None or a.relation_words([m.span], keep_type_noun=False) or \
                not self._property_word(found.group(1)):
            return m
        rest = found.group(2)
        if not uncased and not rest[:1].isupper():
            return m
        cands = self.finder.exact(rest, base_language(lang))
        if not cands:
            return m
        return Mention(rest, m.end - len(rest), m.end, cands)

    def gloss(self, question: str, lang: str) -> Glossed:
        """``question`` as the analysis reads it (``querygen.languages.gloss``): names
        the KB knows are kept, the KB's property names in ``lang`` are read as their
        English labels."""
        if base_language(lang) == "en":
            return Glossed(question, "en", question)
        source = self.linker.source

        def longer(norm: str) -> list[str]:
            return [name for name, _ in source.similar(norm, "words", limit=50)]

        def known(norms: Sequence[str]) -> set[str]:
            """The names the KB knows, also those it writes only with a qualifier
            ("Person of Interest (TV series)")."""
            found = source.known(norms)
            return found | qualified_only(source, [n for n in norms
                                                   if n not in found and " " in n])
        return gloss(question, lang, known=known, normalize=normalize,
                     properties=self.props.names_in(base_language(lang)), longer=longer)

    def _with_class_nouns(self, a: Analysis, mentions: list[Mention]
                          ) -> tuple[Analysis, list[Mention]]:
        """``a`` with the nouns that name the class of a mention's entity ("the town of
        Brighton", "the volcano Karisimbi") marked as describing it: not relation words;
        so too an apposition before a name ("the Indonesian president Suharto",
        ``Analysis.descriptor_before``) where the KB says the entity is of the noun's
        class, or is a person (whose occupations a KB often lacks), or gives it no class,
        and an aside after it ("X, founder of Y, …"): the mentions inside them
        ("Indonesian", "Y") are left out, as they only describe."""
        found: set[str] = set()
        inside: list[tuple[int, int]] = []
        described: dict[tuple[int, int], Mention] = {}
        for m in mentions:
            if m.candidates:
                described[m.span] = self._described(a, m, found, inside)
                place = self._place_of_person(a, m, mentions)
                if place is not None:
                    inside.append(place.span)
                    found.update(w.low for w in a.words
                                 if place.span[0] <= w.start < place.span[1])
        kept = [described.get(m.span, m) for m in mentions
                if not any(s <= m.span[0] and m.span[1] <= e for s, e in inside)
                and not _describes_unknown_name(a, m, mentions)]
        return (replace(a, described=a.described | found) if found else a), kept

    def _described(self, a: Analysis, m: Mention, found: set[str],
                   inside: list[tuple[int, int]]) -> Mention:
        """``m`` with the candidate its description names first (``_described_first``);
        the words that describe it are added to ``found``, the spans of its descriptions
        to ``inside`` (see ``_with_class_nouns``)."""
        phrase = a.class_phrase_before(m.span)
        noun = phrase[-1].low if phrase else None
        run = self._descriptor_run(a, m)
        # "the film E.T." says which E.T.; "the capital of X" asks X's capital
        m = self._described_first(m, (noun if not _of_before(a, m) else None) or
                                  (run[-1].low if run else None))
        ids = [c.id for c in m.candidates[:2]]
        typed = _described_candidates(a, m, ids, noun)
        if noun is not None and (self.types.is_a(typed, noun) or self._apposed(a, m, noun)):
            found.update(w.low for w in phrase)
            # no entity inside: "the Australian city of" is not Australia's, "the
            # province of" no newspaper called The Province
            inside.append((phrase[0].start, phrase[-1].end))
        if run and self._run_describes(a, m, run, ids[0]):
            found.update(w.low for w in run)
            inside.append((run[0].start, run[-1].end))
        for words in self._said_of_it_after(a, m, ids):
            found.update(w.low for w in words)
            inside.append((words[0].start, words[-1].end))
        after = a.class_noun_after(m.span) if m.text != m.text.lower() else None
        if after is not None and after.low not in ROLE_NOUNS and \
                (self.types.is_a(ids[:1], after.low) or self._untyped_noun(ids[0], after.low)) \
                and not self._names_property(after.low):   # "the Camp Nou stadium"
            found.add(after.low)                            # (not "the disco genre")
            inside.append((after.start, after.end))
        aside = a.aside_after(m.span)
        if aside:           # "X, founder of Y, …": what X is, Y no entity asked about
            found.update(w.low for w in aside if w.low not in STOPWORDS)
            inside.append((aside[0].start, aside[-1].end))
        return m

    def _said_of_it_after(self, a: Analysis, m: Mention, ids: Sequence[str]
                          ) -> list[list[Word]]:
        """The word runs right after ``m`` that say what its entity (``ids``, best
        first) is: a compound naming its class ("the steelers *football team*"), and an
        epithet ("Barnabas *the apostle*") of its class or, for a person, a noun that may
        name a kind of person and no property."""
        out = []
        compound = a.class_phrase_after(m.span)
        if compound and self.types.is_a(ids[:1], " ".join(w.low for w in compound)):
            out.append(compound)
        epithet = a.epithet_after(m.span)
        if epithet is not None and not self._names_property(epithet.low) and (
                self.types.is_a(ids[:1], epithet.low) or (
                    self.types.is_a(ids[:1], PERSON_CLASS) and
                    _may_name_a_person(epithet.low))):
            the = next(w for w in a.words if w.start >= m.span[1])
            out.append([the, epithet])
        return out

    def _descriptor_run(self, a: Analysis, m: Mention) -> list[Word]:
        """The apposition before ``m`` (``Analysis.descriptor_before``); in what may be a
        relative clause without "that" ("where the band Braids formed"), only when the KB
        types the entity as the noun says."""
        run = a.descriptor_before(m.span)
        if run:
            return run
        maybe = a.descriptor_before(m.span, relative=True)
        return maybe if maybe and self.types.is_a([c.id for c in m.candidates[:1]],
                                                  maybe[-1].low) else []

    def _run_describes(self, a: Analysis, m: Mention, run: list[Word], entity: str) -> bool:
        """Whether the apposition ``run`` describes ``entity``: the KB types it so; or,
        a noun of no place ("the town X was born in"), it is a person and the noun may
        name a kind of person; or the KB leaves it untyped, the run is English nouns and
        no verb follows the name ("the genre X played" is a relative clause)."""
        head = run[-1].low
        if self.types.is_a([entity], head):
            return True
        if head in PLACE_NOUNS:
            return False
        if self.types.is_a([entity], PERSON_CLASS):
            return _may_name_a_person(head)
        return self._untyped(entity) and _english_nouns(run) and \
            not _clause_verb_after(a, m, run)

    def _people_of_place(self, a: Analysis, mentions: Sequence[Mention]) -> Analysis:
        """``a`` with "people" read as describing the place a mention names, in a question
        that asks for a thing ("What language do the people speak in X?", "What do
        Chilean people speak?"): what the people of a place speak or use is the place's,
        no relation of its own; and "people" asked where ("Where do people speak X?") is
        anyone."""
        if a.wh not in ("what", "which", "where") or \
                "people" in (a.type_noun or "").split() or \
                not any(w.low == "people" for w in a.relation_words([m.span for m in mentions])):
            return a
        ids = [m.candidates[0].id for m in mentions if m.candidates]
        if a.wh != "where" and PLACE not in self.types.kinds(ids).values():
            return a            # "Where do people speak Welsh?": people anywhere
        return replace(a, described=a.described | {"people"})

    def _place_of_person(self, a: Analysis, m: Mention, mentions: Sequence[Mention]
                         ) -> Mention | None:
        """The place named right after the person ``m`` by "of" ("King Hussein of
        Jordan", "Catherine of Aragon"), which only says who ``m`` is; None if none."""
        after = a.question[m.span[1]:].lower()
        gap = len(after) - len(after.lstrip())
        if not after.lstrip().startswith("of ") or not m.candidates or \
                not self.types.is_a([m.candidates[0].id], PERSON_CLASS):
            return None
        rest = after[gap + 3:].lstrip()
        rest = rest[4:] if rest.startswith("the ") else rest
        start = m.span[1] + len(after) - len(rest)
        place = next((n for n in mentions if n.span[0] == start and n.candidates), None)
        if place is None or self.types.kinds([place.candidates[0].id]).get(
                place.candidates[0].id) != PLACE:
            return None
        return place

    def _names_property(self, word: str) -> bool:
        """Whether ``word`` is a name of a property of the KB ("genre", "country")."""
        found = self.props.link(word, limit=1)
        return bool(found) and found[0].match == "exact" and \
            found[0].score >= PROPERTY_NAME_SCORE

    def _apposed(self, a: Analysis, m: Mention, noun: str) -> bool:
        """Whether ``noun`` right before the name ``m`` ("the bank HSBC", "the fashion
        house Gucci") says what it is though the KB types it otherwise (a business, not a
        bank): no "of" between them, and no word of a relation, a role or a property."""
        if m.text == m.text.lower() or _of_before(a, m) or noun in RELATED or \
                noun in ROLE_NOUNS:
            return False
        # a word of a property's name may be a genitive a gloss wrote without "of" ("the
        # headquarters Interpol")
        return not self._property_word(noun)

    def _property_word(self, word: str) -> bool:
        """Whether ``word`` is a word of a property's names, as written or whole."""
        found = self.props.link(word, limit=1)
        return bool(found) and found[0].match in ("exact", "words") and \
            found[0].score >= PROPERTY_WORD_SCORE

    def _untyped_noun(self, entity: str, word: str) -> bool:
        """Whether ``entity`` has no class in the KB and ``word`` may say what it is: a
        word English knows only as a noun, no relation word, and no word of a property's
        name ("the R-11 Zemlya missile"; not "X birth country", "Where did X die?")."""
        if not self._untyped(entity) or parts_of_speech(word) != {"NOUN"} or \
                word in RELATED:
            return False
        return not self._property_word(word)

    def _common_word(self, word: str) -> bool:
        """Whether ``word`` names a relation ("born") or is a word of English ("well"):
        no name, though some title is written so."""
        return word in self.fit.vocabulary or known_word(word)

    def _untyped(self, entity: str) -> bool:
        """Whether the KB gives ``entity`` no class at all (a sparse KB: what the question
        says it is cannot be checked, nor contradicted)."""
        return not self.types.type_labels([entity]).get(entity)

    def _described_first(self, m: Mention, noun: str | None) -> Mention:
        """``m`` with its first candidate of the class the question gives it ("the film
        E.T.", "the band Queen") put first when the linker ranked another first: the
        question says which entity it means, so that candidate takes the first one's
        confidence. ``m`` as it is when no noun describes it, its first candidate is of
        the class, or none of its first ``DESCRIBED_CANDIDATES`` is."""
        cands = m.candidates
        if not noun or len(cands) < 2 or self.types.is_a([cands[0].id], noun):
            return m
        for i, c in enumerate(cands[1:DESCRIBED_CANDIDATES], start=1):
            if self.types.is_a([c.id], noun):
                top = max(c.confidence or 0.0, cands[0].confidence or 0.0)
                first = replace(c, confidence=top)
                return replace(m, candidates=(first, *cands[:i], *cands[i + 1:]))
        return m

    def _in_a_name(self, word: str) -> bool:
        """Whether the lower-case ``word`` is a name the KB knows or a word of one."""
        source = self.linker.source
        return bool(source.known([word])) or bool(source.similar(word, "words", limit=1))

    def plans(self, a: Analysis, mentions: list[Mention]) -> list[QueryPlan]:
        """Every reading of the analysed question, unsorted."""
        if a.form == "ask":
            return self._ask(a, mentions) if mentions else []
        plans: list[QueryPlan] = []
        if mentions:
            plans += self._one_hop(a, mentions)
            plans += self._chains(a, mentions)
            plans += self._pairs(a, mentions)
            plans += self._members(a, mentions)
        if a.type_noun:
            plans = self._constrained(a, plans)
        if a.superlative:
            plans = self._superlatives(a, plans, mentions)
        if a.form == "count":
            plans = [self._count(p) for p in plans]
        return plans

    # -- answer kinds -------------------------------------------------------------------------
    def _place_check(self, plans: list[QueryPlan]) -> list[QueryPlan]:
        """"Where" and "which city": the best readings re-scored by whether their answers
        are places in the KB (things located somewhere, or where things are located)."""
        head, tail = plans[:PLACE_CHECKED], plans[PLACE_CHECKED:]
        rescored = []
        for plan in head:
            values = self._sample_answers(plan)
            if values:
                roles = self.props.roles(values)
                share = sum(1 for v in values if _is_place(roles.get(v))) / len(values)
                plan = replace(plan, score=plan.score + PLACE_FIT * (2 * share - 1))
            rescored.append(plan)
        rescored.sort(key=lambda p: -p.score)
        return rescored + tail

    def _circular(self, plan: QueryPlan) -> bool:
        """Whether a chain only leads back to the entities it starts from ("the doctoral
        advisor of X's doctoral students" is X): it reads a relation's name as two."""
        starts = {d.id for d in plan.decisions if d.kind == "entity"}
        answers = self._sample_answers(plan)
        return bool(answers) and set(answers) <= starts

    def _sample_answers(self, plan: QueryPlan, n: int = 5) -> list[str]:
        return [v for v in (self._answers(plan, limit=n) or []) if v]

    # -- one hop ------------------------------------------------------------------------------
    def _one_hop(self, a: Analysis, mentions: list[Mention]) -> list[QueryPlan]:
        """Triplet queries: a linked entity, a property that fits the relation words,
        forward (s, p, ?) or inverse (?, p, s).

        The KB proposes the properties (those the entity has, as subject or as value);
        the question's syntax (``querygen.direction``) says which way it asks each one.
        Where it says, the converse is not offered, and the asked direction is offered
        even when the KB holds no such statement (its empty answer means "not in the KB",
        never the converse's answer). The property the relation words name best is
        offered that way too when the entity has it in neither role ("the doctoral
        advisor of X" where the KB has no advisor of X)."""
        plans = []
        all_spans = [m.span for m in mentions]
        # "Where is X?", "Which city is X in?": no word names a relation, the answer is a
        # place, and the question asks where (not "What regions make up X?"): the
        # properties that say where X lies are the readings
        where_only = a.answer_type == "place" and _asks_where(a) and \
            not content(a.relation_words(all_spans, keep_type_noun=False))
        for mention in _topics(a, mentions):
            scores = self.fit.name_scores(self.fit.phrases(a, [mention.span], all_spans))
            contents = [content(a.relation_words([mention.span])),
                        content(a.relation_words(all_spans))]
            contents = [c for c in contents if c] or [[]]
            cands = mention.candidates[:ENTITY_CANDIDATES]
            roles = self.props.roles([c.id for c in cands])
            of_mention = _of_before(a, mention)
            named = self._named(a, scores, contents)
            for rank, cand in enumerate(cands):
                out_props, in_props = roles.get(cand.id, (frozenset(), frozenset()))
                pids = out_props | in_props
                if named is not None and rank == 0:
                    pids = pids | {named}
                for pid in pids:
                    fit = self.fit.fit(a, pid, scores, contents)
                    if fit is None and where_only and pid in out_props and \
                            self._locates(pid):
                        fit = (WHERE_FIT, self.fit.candidate(pid, WHERE_FIT))
                    if fit is None:
                        continue
                    held = {True} if pid in out_props else set()
                    held |= {False} if pid in in_props else set()
                    asked = None if self._symmetric(pid) else \
                        asked_direction(a, mention.span, self._names(pid, fit[1]))
                    directions: tuple[bool, ...]
                    if asked is not None:
                        directions = (asked == FORWARD,)
                    else:           # the words do not say: the KB's statements decide
                        directions = tuple(sorted(held, reverse=True))
                    plans += [_one_hop_plan(mention, cand, fit, forward, held, asked,
                                            of_mention) for forward in directions]
        return plans

    def _symmetric(self, pid: str) -> bool:
        """Whether the KB holds ``pid`` both ways for a share of the pairs it links
        ("diplomatic relation", "sister city", "spouse"; a partial KB misses many of the
        reverse statements, other relations have none): its direction then says nothing,
        and the KB's statements decide between the readings. Sampled once per property."""
        n, both = self.held_back(pid, pid, SYMMETRY_SAMPLE)
        return n >= 2 and both >= SYMMETRY_SHARE * n

    def held_back(self, pid: str, back: str, sample: int) -> tuple[int, int]:
        """(statements sampled, how many the KB also holds from object to subject along
        ``back``) for up to ``sample`` of ``pid``'s statements with an entity value;
        (0, 0) for a property the KB cannot list. Sampled once per pair and size."""
        key = (pid, back, sample)
        if key not in self._held_back_cache:
            try:
                found = [st for st in self.kb.statements(None, pid, None, limit=sample)
                         if st.value.kind in ("entity", "iri")]
                held = sum(1 for st in found
                           if self.kb.statements(st.value.value, back, st.subject, limit=1))
                counts = (len(found), held)
            except Exception:          # noqa: BLE001 - a property the KB cannot list
                counts = (0, 0)
            with self._lock:
                self._held_back_cache[key] = counts
        return self._held_back_cache[key]

    def _out_props(self, entity: str) -> frozenset[str]:
        return self.props.roles([entity]).get(entity, (frozenset(), frozenset()))[0]

    def _names(self, pid: str, cand: Candidate | None) -> list[str]:
        """The names of ``pid`` to read the question's syntax with: the one that matched
        the relation words first, then its label and aliases."""
        info = self.fit.info(pid)
        names = [cand.matched or cand.label] if cand is not None else []
        if info is not None:
            names += [info.label, *info.aliases]
        return [n for n in dict.fromkeys(names) if n]

    def _named(self, a: Analysis | None, scores: dict,
               contents: list[list[str]]) -> str | None:
        """The property the relation words name outright (a fit of at least NAMED_FIT,
        the best such), whether or not the KB has it for the entity; None if none."""
        best, best_fit = None, NAMED_FIT
        for pid in scores:
            fit = self.fit.fit(a, pid, scores, contents)
            if fit is not None and fit[0] >= best_fit:
                best, best_fit = pid, fit[0]
        return best

    # -- chains -------------------------------------------------------------------------------
    def _chains(self, a: Analysis, mentions: list[Mention]) -> list[QueryPlan]:
        """Chains of two or three properties, one per piece of the relation words (a piece
        that only names the class of the nodes reached names none), that the KB holds from
        a linked entity."""
        plans = []
        for mention in _topics(a, mentions):
            for pieces in chunks(a, mention.span):
                # four pieces when one may be a class noun that names no hop
                if not 2 <= len(pieces) <= CHAIN_HOPS + 1:
                    continue
                piece_scores = [self.fit.name_scores(self.fit.chunk_phrases(p))
                                for p in pieces]
                piece_words = [content(p) for p in pieces]
                side = of_side(a, pieces[-1])
                answer_of = (side, pieces[-1][0].low) if side else None
                for cand in mention.candidates[:3]:
                    plans += self._follow(a, mention, cand, piece_scores, piece_words,
                                          answer_of)
        return plans

    def _follow(self, a: Analysis, mention: Mention, cand: Candidate,
                piece_scores: list[dict], piece_words: list[list[str]],
                answer_of: tuple[str, str] | None) -> list[QueryPlan]:
        """Chains from ``cand``: hop i follows a property fitting piece i (the last one,
        ``answer_of``, the answer's own: "the R of …")."""
        # partial chains: (edges so far, their fit, the entities reached)
        entity = _entity(mention, cand)
        frontier: list[tuple[tuple[Edge, ...], float, list[str]]] = [((), 0.0, [cand.id])]
        for depth, (scores, words) in enumerate(zip(piece_scores, piece_words, strict=True)):
            last = depth == len(piece_scores) - 1
            grown = []
            for edges, fit_so_far, reached in frontier:
                options = self._hop_options(a if last else None, scores, words, reached,
                                            bool(edges), last, mention.span,
                                            answer_of if last else None)
                if options is None:       # the piece describes the nodes reached
                    grown.append((_ending_at_answer(edges) if last else edges, fit_so_far,
                                  reached))
                    continue
                for (pid, forward), hop_fit in sorted(options.items(),
                                                      key=lambda x: -x[1])[:4]:
                    if hop_fit < MIN_HOP_FIT:
                        break
                    subject = entity if not edges else Var(f"y{len(edges)}")
                    obj = Var("x") if last else Var(f"y{len(edges) + 1}")
                    prop = _property(self.fit.candidate(pid, hop_fit))
                    edge = Edge(subject, prop, obj) if forward else Edge(obj, prop, subject)
                    nxt = [] if last else self._values(reached, pid, forward)
                    if not last and not nxt:
                        continue
                    grown.append(((*edges, edge), fit_so_far + hop_fit, nxt))
            frontier = sorted(grown, key=lambda g: -g[1] / len(g[0]))[:BEAM]
        # a chain left with one hop is a one-hop reading, which ``_one_hop`` offers
        return [QueryPlan(edges, score=cand.score + fit / len(edges) -
                          CHAIN_PENALTY * (len(edges) - 1),
                          fit=fit / len(edges), notes=(f"chain of {len(edges)}",))
                for edges, fit, _ in frontier if 1 < len(edges) <= CHAIN_HOPS]

    def _hop_options(self, a: Analysis | None, scores: dict, words: list[str],
                     reached: list[str], inner: bool, last: bool, span: tuple[int, int],
                     answer_of: tuple[str, str] | None = None
                     ) -> dict[tuple[str, bool], float] | None:
        """(property, forward) → fit, for the hops a piece of relation ``words`` (name
        ``scores``) may take from the entities ``reached``; None when the piece only
        describes them (``inner``: they are reached by a hop already): "the town where X
        died", "fronted a band that comes from" take no hop for "town", "band". The last
        hop of a chain never goes against the direction a verb around the mention ``span``
        asks ("Which label is owned by X's record company?": the label is owned by the
        company, the company is not owned by the label), nor against the side of "the R
        of" the answer is on (``answer_of``: the side, ``of_side``, and R): "the capital
        of the country where X died" is that country's capital, not what the city X died
        in is the capital of."""
        if inner and self._names_class_of(words, reached):
            return None
        roles = self.props.roles(reached)
        # "that state's capital", "the state capital": the first noun says what the
        # entities reached are, the rest names the hop
        rest = words[1:] if inner and len(words) > 1 and \
            self._describes(words[:1], reached) else None
        options: dict[tuple[str, bool], float] = {}
        for node in reached:
            out_p, in_p = roles.get(node, (frozenset(), frozenset()))
            for pid, forward in [*((p, True) for p in out_p), *((p, False) for p in in_p)]:
                fit = self.fit.fit(a, pid, scores, [words])
                if fit is None or fit[0] <= options.get((pid, forward), 0.0) or \
                        rest is not None and not self.fit.coverage(rest, pid):
                    continue
                if last and inner and (self._against_asked(a, span, pid, fit[1], forward)
                                       or answer_of is not None and
                                       against_of(fit[1], forward, *answer_of)):
                    continue
                options[(pid, forward)] = fit[0]
        if not any(f >= MIN_HOP_FIT for f in options.values()):
            describes = self._describes(words, reached)
            if inner and describes:
                return None
            if not last and not describes:      # a class the entities reached are not
                options.update(self._class_hops(words, reached, roles))
        return options

    def _against_asked(self, a: Analysis | None, span: tuple[int, int], pid: str,
                       cand: Candidate | None, forward: bool) -> bool:
        """Whether taking ``pid`` ``forward`` (or backward) as a chain's last hop goes
        against the direction a verb around ``span`` asks for it (a symmetric property
        has none)."""
        if a is None or self._symmetric(pid):
            return False
        asked = asked_by_verb(a, span, self._names(pid, cand))
        return asked is not None and (asked == FORWARD) != forward

    def _describes(self, words: Sequence[str], reached: Sequence[str]) -> bool:
        """Whether ``words`` are one noun that names the class of the entities reached
        ("a band", "the organisation"), where no property fits them."""
        return len(words) == 1 and not only_verb(words[0]) and \
            words[0].lower() not in STOPWORDS and \
            self.types.is_a(list(reached[:CLASS_SAMPLE]), words[0].lower())

    def _class_hops(self, words: Sequence[str], reached: Sequence[str],
                    roles: Mapping[str, tuple[frozenset[str], frozenset[str]]]
                    ) -> dict[tuple[str, bool], float]:
        """The hops from ``reached`` that a piece naming only a class and no property takes
        ("Syd Barrett's band": the Pink Floyd he is a member of): each property (either
        way) whose values from ``reached`` are of that class, at ``CLASS_HOP_FIT``. None
        for a piece of more than one word, a kind of place (``_names_class_of`` reads
        those), or from more than ``CLASS_HOP_FROM`` entities. The caller has made sure
        the entities reached are not of that class (``_describes``)."""
        if len(words) != 1 or len(reached) > CLASS_HOP_FROM or only_verb(words[0]) or \
                words[0].lower() in PLACE_NOUNS or words[0].lower() in STOPWORDS:
            return {}
        noun = words[0].lower()
        out: dict[tuple[str, bool], float] = {}
        for node in reached:
            out_p, in_p = roles.get(node, (frozenset(), frozenset()))
            for pid, forward in [*((p, True) for p in out_p - {TYPE_PROPERTY}),
                                 *((p, False) for p in in_p - {TYPE_PROPERTY})]:
                values = self._values([node], pid, forward)[:CLASS_SAMPLE]
                if values and self.types.is_a(values, noun):
                    out[(pid, forward)] = CLASS_HOP_FIT
        return out

    def _names_class_of(self, words: Sequence[str], reached: Sequence[str]) -> bool:
        """Whether ``words`` only name a kind of place or person that the entities a
        chain has reached are: "the town where X was born" describes the birthplace,
        it asks for no hop along "twin town" from it."""
        nouns = [w.lower() for w in words]
        return bool(nouns) and all(n in PLACE_NOUNS or n in PERSON_NOUNS for n in nouns) \
            and all(self.types.is_a(reached[:CLASS_SAMPLE], n) for n in nouns)

    def _values(self, subjects: Sequence[str], pid: str, forward: bool) -> list[str]:
        """Entities one hop away from ``subjects`` over ``pid`` (at most CHAIN_FANOUT)."""
        out: dict[str, None] = {}
        for s in subjects:
            try:
                found = (self.kb.statements(s, pid, limit=CHAIN_FANOUT) if forward
                         else self.kb.statements(None, pid, s, limit=CHAIN_FANOUT))
            except Exception:          # noqa: BLE001 - an ID the KB refuses
                continue
            for st in found:
                node = st.value.value if forward else st.subject
                if not forward or st.value.kind in ("entity", "iri"):
                    out[node] = None
            if len(out) >= CHAIN_FANOUT:
                break
        return list(out)[:CHAIN_FANOUT]

    # -- members of a category ----------------------------------------------------------------
    def _members(self, a: Analysis, mentions: list[Mention]) -> list[QueryPlan]:
        """"Name a poet", "Who is an opera singer?", "artists signed to Verve": the
        entities that point at a mentioned category, over the property the KB most often
        uses for it (P106 for an occupation, P136 for a genre, P264 for a label, …). The
        property need not be named: its fit to the relation words only adds to the score;
        an indefinite article before the mention ("a poet") says a member is asked for."""
        plans = []
        all_spans = [m.span for m in mentions]
        words = content(a.relation_words(all_spans))
        scores = self.fit.name_scores(self.fit.phrases(a, all_spans, all_spans)) \
            if words else {}
        for mention in mentions:
            indefinite = _article_before(a, mention)
            for cand in mention.candidates[:2]:
                member = self._membership(cand.id)
                if member is None or member[1] < MIN_MEMBERS:
                    continue
                pid = member[0]
                if self._symmetric(pid):
                    continue           # the entities that share a border with X are no kind of X
                fit = self.fit.fit(None, pid, scores, [words]) if words else None
                names = self._names(pid, fit[1] if fit else None)
                if asked_direction(a, mention.span, names) == FORWARD:
                    continue           # "Who advised X?": X's advisor, not X's students
                if fit is not None and pid in self._out_props(cand.id):
                    # the words name a property X has itself ("Which country does X
                    # have diplomatic relations with?"): the one-hop readings weigh
                    # X's own statements against the converse; as a category this
                    # reading would outrank X's own
                    continue
                score = (cand.score + MEMBER_FIT + (fit[0] * 0.5 if fit else 0.0)
                         + (INDEFINITE_FIT if indefinite else 0.0))
                prop = _property(self.fit.candidate(pid, score))
                plans.append(QueryPlan((Edge(Var("x"), prop, _entity(mention, cand)),),
                                       score=score, fit=fit[0] if fit else 0.0,
                                       notes=(f"members of {cand.id}",)))
        return plans

    def _class_after_category(self, a: Analysis, mentions: list[Mention]) -> Analysis:
        """"Name a jazz album", "a punk rock band": in a question asking for one of many,
        a class noun right after a category is the class of the answers, as after
        "which" ("Which jazz albums …"); ``a`` unchanged when there is none."""
        if not a.one_of_many or a.type_noun:
            return a
        for m in mentions:
            after = [w for w in a.words if w.start >= m.end][:1]
            if not m.candidates or not _article_before(a, m) or not after or \
                    not after[0].text.isalpha() or not after[0].text.islower() or \
                    after[0].low in DESCRIPTION_ENDS or after[0].low in STOPWORDS or \
                    "NOUN" not in parts_of_speech(after[0].low) or \
                    self._membership(m.candidates[0].id) is None or \
                    not self._classes(after[0].low):
                continue
            return replace(a, type_noun=after[0].low, frame=a.frame | {after[0].start})
        return a

    def _head_as_class(self, a: Analysis, mentions: list[Mention]
                       ) -> tuple[Analysis, list[Mention]]:
        """"Who is an actor from Pittsburgh?", "Name a botanist born in Paris": in a
        question asking for one of many, a head noun that names a class the KB has
        members of is the class of the answers, as after "which", when another entity
        says what they are related to: it is read as the class noun, not as an entity
        (``a`` and ``mentions`` unchanged otherwise: "a botanist" alone asks for the
        members of the class)."""
        if not a.one_of_many or a.type_noun or a.one_head < 0:
            return a, mentions
        head = next((m for m in mentions if m.start <= a.one_head < m.end), None)
        if head is None or not head.candidates or not any(
                m.candidates and m.span != head.span for m in mentions):
            return a, mentions
        noun = head.text.lower()
        if self._membership(head.candidates[0].id) is None or not self._classes(noun):
            return a, mentions
        words = {w.start for w in a.words if head.start <= w.start < head.end}
        return (replace(a, type_noun=noun, frame=a.frame | words),
                [m for m in mentions if m.span != head.span])

    # -- pairs --------------------------------------------------------------------------------
    def _pairs(self, a: Analysis, mentions: list[Mention]) -> list[QueryPlan]:
        """(s, ?, o) for two entities when the question asks how they are related
        ("related", "relationship", "connection", "between") and names no relation."""
        if len(mentions) < 2:
            return []
        words = set(content(a.relation_words([m.span for m in mentions])))
        lows = {w.low for w in a.words}
        if words - GENERIC_RELATION_WORDS or not lows & GENERIC_RELATION_WORDS:
            return []                  # named relation words, or none asking how they relate
        plans = []
        for m1, m2 in _pairs_of(mentions):
            c1, c2 = m1.candidates[0], m2.candidates[0]
            for s, o, sm, om in ((c1, c2, m1, m2), (c2, c1, m2, m1)):
                linked = self.kb.statements(s.id, None, o.id, limit=5)
                score = s.score + o.score + (0.5 if linked else 0.0)
                plans.append(QueryPlan((Edge(_entity(sm, s), Var("p"), _entity(om, o)),),
                                       answer="p", score=score, notes=("pair",)))
        return plans

    # -- yes/no -------------------------------------------------------------------------------
    def _ask(self, a: Analysis, mentions: list[Mention]) -> list[QueryPlan]:
        """ASK readings over two linked entities."""
        plans = []
        all_spans = [m.span for m in mentions]
        words = content(a.relation_words(all_spans))
        scores = self.fit.name_scores(self.fit.phrases(a, all_spans, all_spans))
        for m1, m2 in _pairs_of(mentions):
            for c1 in m1.candidates[:3]:
                for c2 in m2.candidates[:3]:
                    plans += self._ask_pair(a, (m1, c1), (m2, c2), scores, words)
        return plans

    def _ask_pair(self, a: Analysis, first: tuple[Mention, Candidate],
                  second: tuple[Mention, Candidate], scores: dict,
                  words: list[str]) -> list[QueryPlan]:
        plans = []
        base = first[1].score + second[1].score
        for (sm, s), (om, o) in ((first, second), (second, first)):
            subject, obj = _entity(sm, s), _entity(om, o)

            def against_syntax(pid: str, cand: Candidate, sm: Mention = sm,
                               om: Mention = om) -> bool:
                """Whether the question asks the property the other way round ("Was Y
                the doctoral advisor of X?" asks X's advisor, not Y's)."""
                if self._symmetric(pid):
                    return False
                names = self._names(pid, cand)
                return (asked_direction(a, sm.span, names) == INVERSE
                        or asked_direction(a, om.span, names) == FORWARD)

            held = {st.property for st in self.kb.statements(s.id, None, o.id, limit=50)}
            for pid in held:                       # the KB links them directly: true
                fit = self._ask_fit(pid, scores, words)
                if fit is None:
                    continue
                if against_syntax(pid, fit[1]):    # held the other way round: asked as
                    plans.append(QueryPlan(        # the question asks it
                        (Edge(obj, _property(fit[1]), subject),), form="ask",
                        score=base + fit[0], notes=("yes/no, as asked",)))
                    continue
                plans.append(QueryPlan((Edge(subject, _property(fit[1]), obj),),
                                       form="ask", score=base + fit[0] + ASK_TRUE_BONUS,
                                       notes=("yes/no, held",)))
            out_props, _ = self.props.roles([s.id]).get(s.id, (frozenset(), frozenset()))
            named = self._named(None, scores, [words]) if words else None
            if named is not None:                  # asked outright: false if not held
                out_props = out_props | {named}
            for pid in out_props - held:           # a fitting property of s: false, or …
                fit = self._ask_fit(pid, scores, words)
                if fit is None or against_syntax(pid, fit[1]):
                    continue
                prop = _property(fit[1])
                plans.append(QueryPlan((Edge(subject, prop, obj),), form="ask",
                                       score=base + fit[0], notes=("yes/no",)))
                # … true through one place that lies in o ("born in Germany": in Ulm)
                for mid in self._values([s.id], pid, True)[:10]:
                    inside = [st.property for st in self.kb.statements(mid, None, o.id,
                                                                       limit=5)
                              if self._containment(st.property)]
                    if inside:
                        plans.append(QueryPlan(
                            (Edge(subject, prop, Var("m")),
                             Edge(Var("m"), _property(self.fit.candidate(inside[0], 0.0)),
                                  obj)),
                            form="ask", score=base + fit[0] + ASK_TRUE_BONUS - CHAIN_PENALTY,
                            notes=("yes/no, held through a place inside the other",)))
                        break
        return plans

    def _containment(self, pid: str) -> bool:
        """Whether ``pid`` says where something lies (located in, country, part of, …)."""
        return pid in CONTAINMENT or bool(
            self.fit.name_words(pid) & {"located", "country", "continent", "part",
                                        "administrative", "territorial"})

    def _locates(self, pid: str) -> bool:
        """Whether ``pid`` says where its subject lies (located in, country, continent,
        location), not what it is part of (a mountain range, an organization), nor what
        lies in it: by its label, as an alias says other things ("administrative centre"
        is a capital, which lies in its subject). An organization lies where its
        headquarters are."""
        info = self.fit.info(pid)
        label = set(norm_words(info.label)) if info is not None else set()
        words = self.fit.name_words(pid)
        return (self._containment(pid) or "headquarters" in words) and "part" not in words and \
            not label & {"capital", "contains"}

    def _ask_fit(self, pid: str, scores: dict, words: list[str]
                 ) -> tuple[float, Candidate] | None:
        if not words:       # "Is X a Y?": whatever links them; the type property first
            return (0.6 if pid == TYPE_PROPERTY else 0.5), self.fit.candidate(pid, 0.5)
        return self.fit.fit(None, pid, scores, [words])

    # -- type constraints ---------------------------------------------------------------------
    def _constrained(self, a: Analysis, plans: list[QueryPlan]) -> list[QueryPlan]:
        """Readings narrowed to the members of the class the "which N" noun names
        (``?x wdt:P31/wdt:P279* C``, or ``?x wdt:P106 C`` for an occupation: whatever
        property the KB most often points at C with).

        An inverse reading ("Which physicists were born in Warsaw?": ``?x P19 Warsaw``)
        gathers answers of every kind, so its narrowed form wins when the KB confirms it
        (non-empty, and fewer answers). A forward reading ("Which country does X border?")
        already answers with what X's property holds, and in a partial KB many answers
        carry no type: there the narrowed form is only offered as an alternative."""
        classes = self._classes(a.type_noun) if a.type_noun else []
        if not classes:
            return plans
        out = list(plans)
        best = sorted((p for p in plans if p.answer == "x" and p.form == "select"),
                      key=lambda p: -p.score)[:CONSTRAINED]
        anyone = bool(set((a.type_noun or "").split()[-1:]) & ANY_PERSON_NOUNS)
        for plan in best:
            every = self._answers(plan) or []
            if len(every) < 2:
                continue
            inverse = plan.edges[0].subject == Var("x") and not _forward_too(plan, plans)
            for cls in classes[:2]:
                member = self._member_edge(cls)
                if member is None:
                    continue
                narrowed = replace(plan, edges=(*plan.edges, member),
                                   notes=(*plan.notes, "type constraint"))
                kept = set(self._answers(narrowed) or ())
                if 0 < len(kept) < len(every) and (not anyone or self._classed(
                        [x for x in every if x not in kept], cls.id)):
                    bonus = CONSTRAINT_BONUS if inverse else -CONSTRAINT_BONUS
                    out.append(replace(narrowed, score=plan.score + bonus))
                    break
        return out

    def _classed(self, dropped: Sequence[str], cls: str) -> bool:
        """Whether one of the answers a class constraint ``dropped`` (a sample) is a member
        of some class by the property that makes members of ``cls``: a constraint to
        persons that only drops answers the KB gives no class filters on what the KB
        lacks ("a person born in Munich": most of them are typed nothing, not
        non-humans), not on what the question asks."""
        member = self._membership(cls)
        pid = member[0] if member is not None else TYPE_PROPERTY
        return any(self.kb.statements(x, pid, None, limit=1)
                   for x in dropped[:CLASS_SAMPLE * 4] if x)

    def noun_roles(self, noun: str) -> tuple[tuple[str, str], ...]:
        """(property, class) for the classes ``noun`` names whose members the KB states by
        a property other than instance of ("actor": occupation actor)."""
        out = []
        for cls in self._classes(noun)[:2]:
            member = self._membership(cls.id)
            if member is not None and member[0] != TYPE_PROPERTY:
                out.append((member[0], cls.id))
        return tuple(out)

    def _member_edge(self, cls: LinkingDecision) -> Edge | None:
        member = self._membership(cls.id)
        if member is None:
            return None
        pid = member[0]
        if pid == TYPE_PROPERTY:
            path = Path((self._type_prop(),
                         _property(self.fit.candidate(SUBCLASS_PROPERTY, 1.0))), star=True)
            return Edge(Var("x"), path, cls)
        return Edge(Var("x"), _property(self.fit.candidate(pid, 1.0)), cls)

    def _classes(self, noun: str) -> list[LinkingDecision]:
        """Entities the noun of "which N" may name as a class (singular forms tried)."""
        out = []
        for form in _singulars(noun):
            for c in self.finder.exact(form):
                out.append(LinkingDecision("class", noun, (c,)))
            if out:
                break
        return out

    def _type_prop(self) -> LinkingDecision:
        return _property(self.fit.candidate(TYPE_PROPERTY, 1.0))

    def _answers(self, plan: QueryPlan, limit: int = 1000) -> list[str] | None:
        """The distinct answers of ``plan`` (ordering ignored), by triplet queries where
        they do (``querygen.solve``), else by SPARQL; None when the KB cannot say."""
        try:
            if plan.choices:
                raise Unsolvable("the answer is one of given entities (VALUES)")
            found = solve(self.kb, plan.patterns(), limit=limit)
            return list(dict.fromkeys(b.get(plan.answer, "") for b, _ in found))
        except Unsolvable:
            pass
        q = replace(plan, form="select", order=None, limit=limit).generated("")
        try:
            rows = self.kb.sparql(q.text).rows
        except Exception:              # noqa: BLE001 - a query this KB cannot answer
            return None
        return list(dict.fromkeys(str(r[plan.answer]).rsplit("/", 1)[-1] for r in rows
                                  if plan.answer in r))

    def _count_answers(self, plan: QueryPlan) -> int:
        return len(self._answers(plan) or ())

    # -- superlatives -------------------------------------------------------------------------
    def _superlatives(self, a: Analysis, plans: list[QueryPlan],
                      mentions: list[Mention]) -> list[QueryPlan]:
        """Readings ordered by a date or quantity property and cut to the first answer."""
        sup = a.superlative
        assert sup is not None
        bases = sorted((p for p in plans if p.form == "select" and p.answer == "x"),
                       key=lambda p: -p.score)[:3]
        bases += self._class_members(a, mentions)
        bases += self._choices(a, mentions)
        if not bases:
            return plans
        # ordering properties: date/quantity properties the relation words name (for
        # "first", "last": "born first" is ordered by date of birth), then the ones the
        # superlative implies ("oldest": date of birth or inception)
        wanted = []
        if sup.relative:
            words = a.relation_words([m.span for m in mentions])
            for pid, (s, _) in sorted(self.fit.name_scores(
                    self.fit.chunk_phrases(words)).items(), key=lambda x: -x[1][0]):
                if self.fit.datatype(pid) in ("time", "quantity") and s >= 0.4:
                    wanted.append((pid, s))
        for rank, phrase in enumerate(sup.words):
            for c in self.props.link(phrase, limit=3):
                if self.fit.datatype(c.id) in ("time", "quantity"):
                    wanted.append((c.id, 0.8 - 0.1 * rank))
                    break
        out = []
        for base in bases:
            for pid, fit in wanted:
                prop = _property(self.fit.candidate(pid, fit))
                ordered = QueryPlan((*base.edges, Edge(Var("x"), prop, Var("v"))),
                                    order=("v", sup.direction), limit=1,
                                    score=base.score + fit, choices=base.choices,
                                    notes=(*base.notes, f"ordered by {pid}"))
                if self._count_answers(replace(ordered, limit=None)):
                    out.append(ordered)
                    break
        return out or plans

    def _choices(self, a: Analysis, mentions: list[Mention]) -> list[QueryPlan]:
        """"Who was born first, X or Y?", "Which is older: X, Y or Z?": the answer is one
        of the entities the question names, joined by "or" (``VALUES ?x { X Y }``)."""
        named = [m for m in mentions if m.candidates]
        if len(named) < 2:
            return []
        between = [a.question[x.end:y.start].strip(" ,;:").lower()
                   for x, y in zip(named, named[1:])]
        if "or" not in between[-1:] and not all(b in ("or", "", "and") for b in between):
            return []
        if not any(b == "or" for b in between):
            return []
        choices = tuple(_entity(m, m.candidates[0]) for m in named)
        link = sum(m.candidates[0].score for m in named) / len(named)
        return [QueryPlan((), score=link + CHOICE_FIT, choices=choices,
                          notes=(f"one of {len(choices)} named",))]

    def _class_members(self, a: Analysis, mentions: list[Mention]) -> list[QueryPlan]:
        """``?x P C`` for the class C that the question's noun (or a mention) names, P being
        the property that most often links entities to C (P31 for a class, P106 for an
        occupation, …)."""
        nouns = [a.type_noun] if a.type_noun else []
        nouns += [m.text for m in mentions]
        out = []
        for noun in nouns:
            for cls in self._classes(noun)[:2]:
                member = self._member_edge(cls)
                if member is None:
                    continue
                out.append(QueryPlan((member,),
                                     score=cls.chosen.score + 0.5,
                                     notes=(f"members of {cls.id}",)))
        return out

    def _membership(self, cls: str) -> tuple[str, int] | None:
        """(property, statements) that most often point at ``cls``; P31 wins ties."""
        if cls not in self._member_cache:
            counts: dict[str, int] = {}
            try:
                for st in self.kb.statements(None, None, cls, limit=500):
                    counts[st.property] = counts.get(st.property, 0) + 1
            except Exception:          # noqa: BLE001
                counts = {}
            best = max(counts.items(), key=lambda kv: (kv[1], kv[0] == TYPE_PROPERTY),
                       default=None)
            with self._lock:
                self._member_cache[cls] = best
        return self._member_cache[cls]

    # -- counts -------------------------------------------------------------------------------
    def _count(self, plan: QueryPlan) -> QueryPlan:
        """A reading as a count, unless its property is itself a number ("number of
        children"): then the value is the answer."""
        if plan.form != "select" or plan.order:
            return plan
        last = plan.edges[-1]
        if isinstance(last.predicate, LinkingDecision) and \
                self.fit.datatype(last.predicate.id) == "quantity":
            return replace(plan, score=plan.score + QUANTITY_FIT,
                           notes=(*plan.notes, "a number the KB states"))
        return replace(plan, form="count", notes=(*plan.notes, "count"))


# -- helpers -----------------------------------------------------------------------------------

def _named_relation_only(plans: list[QueryPlan], a: Analysis) -> list[QueryPlan]:
    """When a reading's property names the question's relation outright (fit ≥
    NAMED_FIT), the readings whose relation fit is FIT_GAP lower: they answer another
    question, and must not answer this one when the named reading finds nothing."""
    fits = [p.fit for p in plans if p.fit is not None and p.form != "ask"]
    best = max(fits, default=0.0)
    if best < NAMED_FIT:
        return plans
    # a property the entity has neither way is the reading only when nothing it has fits:
    # "Which genre is X associated with?" is X's genre, not the "associated with" X lacks
    if held_one_hop(plans) >= HELD_FIT:
        plans = [p for p in plans if not (p.notes and p.notes[0].endswith(NOT_HELD))]
        best = max((p.fit for p in plans if p.fit is not None and p.form != "ask"),
                   default=0.0)
        if best < NAMED_FIT:
            return plans
    # a one hop that names every relation word outright: chains would split its name
    # ("doctoral | advisor" of X's doctoral students); a name of one word cannot be
    # split ("headquartered in the capital of X" is two relations, though "capital" is
    # also called "administrative headquarters")
    # ("Which record label was X's band signed to?" keeps the chain that ends at the
    # record label, once: it splits no name)
    one_hop, whole = _whole_name_fit(plans, a)
    return [p for p in plans if p.fit is None or p.form == "ask" or
            (p.fit >= best - FIT_GAP and not (
                one_hop is not None and p.fit <= one_hop and p.notes[:1]
                and p.notes[0].startswith("chain") and not _takes_once(p, whole)))]


def held_one_hop(plans: list[QueryPlan]) -> float:
    """The best relation fit of a one-hop reading along a property the entity has."""
    return max((p.fit for p in plans if p.fit is not None and p.form != "ask"
                and p.notes[:1] and p.notes[0].startswith("one hop")
                and not p.notes[0].endswith(NOT_HELD)), default=float("-inf"))


def _whole_name_fit(plans: list[QueryPlan], a: Analysis) -> tuple[float | None, set[str]]:
    """The best fit of a one-hop reading whose property name, of several words all in
    the question, names the relation outright (None if there is none), and the
    properties of such readings."""
    question = {root(w) for w in norm_words(a.question)}
    whole = [p for p in plans if NAMES_RELATION in p.notes and p.fit is not None
             and p.fit >= NAMED_FIT and _splittable_name(p, question)]
    return (max((p.fit for p in whole if p.fit is not None), default=None),
            {pid for p in whole for pid in _pids(p)})


def _takes_once(plan: QueryPlan, pids: set[str]) -> bool:
    """Whether ``plan`` follows one of ``pids`` and no property twice."""
    path = _pids(plan)
    return bool(pids & set(path)) and len(set(path)) == len(path)


def _pids(plan: QueryPlan) -> list[str]:
    """The IDs of the properties ``plan``'s edges follow."""
    return [e.predicate.id for e in plan.edges if isinstance(e.predicate, LinkingDecision)]


def _relative_place_head(a: Analysis) -> Analysis:
    """``a`` with a town or a place that heads a relative "where" clause read as
    describing the place reached ("The city where X died is the capital of what?"): it
    asks no hop of its own ("city" is also a name of "located in"). Not when "where" asks,
    nor a larger place ("the country where X was born" is the birthplace's country)."""
    ws = a.words
    heads = {ws[i - 1].low for i in range(1, len(ws))
             if ws[i].low == "where" and ws[i].start not in a.frame
             and ws[i - 1].low in PLACE_NOUNS - ROLE_NOUNS
             and (ws[i - 1].low in ("place", "places") or place_level(ws[i - 1].low) == 1)}
    return replace(a, described=a.described | heads) if heads else a


def _located_as_frame(a: Analysis, mentions: list[Mention]
                      ) -> tuple[Analysis, list[Mention]]:
    """``a`` with the words that only say a place is asked for read as the question's
    frame, when they are its only relation words: "Where is X located?", "Where does X
    lie?" ask what "Where is X?" asks, no property named "location" (a lower-case mention
    of such a word, "lie", goes too). Not with another mention beside the place, which may
    name a hop ("Where is the birthplace of X located?")."""
    if a.wh != "where":
        return a, mentions
    kept = [m for m in mentions if m.text.lower() not in CONTAINMENT_WORDS]
    if len(kept) != 1:
        return a, mentions
    words = a.relation_words([m.span for m in kept])
    if not content(words) or not all(w in CONTAINMENT_WORDS for w in content(words)):
        return a, mentions
    said = {w.start for w in words if w.low in CONTAINMENT_WORDS}
    return replace(a, frame=a.frame | said), kept


def _asks_where(a: Analysis) -> bool:
    """Whether the question asks where: "where", or "in"/"located"/"lies" … with a place
    asked for ("Which city is X in?")."""
    return a.wh == "where" or any(w.low == "in" or w.low in CONTAINMENT_WORDS
                                  for w in a.words)


def _splittable_name(plan: QueryPlan, question: set[str]) -> bool:
    """Whether the property name a one-hop reading matched has several content words,
    all of them in the question (by root): a chain could read them as two relations."""
    names = [c.matched or c.label for d in plan.decisions if d.kind == "property"
             for c in d.candidates[:1]]
    words = [root(w) for name in names for w in norm_words(name) if w not in STOPWORDS]
    return len(words) >= 2 and set(words) <= question


def _one_hop_plan(mention: Mention, cand: Candidate, fit: tuple[float, Candidate], forward: bool,
                  held: set[bool], asked: str | None, of_mention: bool) -> QueryPlan:
    """The one-hop plan of ``RuleGenerator._one_hop`` for candidate ``cand`` of
    ``mention``, property ``fit`` = (its fit, its property match), one direction: scored
    by the candidate and the fit, less a penalty for the inverse and for a direction the
    KB holds no statement in (``held``: the directions it does), and for "the R of X"
    (``of_mention``) by whether the direction agrees; its notes say how it was read
    (``asked``: the direction the question's words ask, or None)."""
    total = cand.score + fit[0] - (0.0 if forward else INVERSE_PENALTY)
    if forward not in held:
        total -= ABSENT_PENALTY
    if of_mention:        # "the R of X": X is R's subject, unless
        # the property is itself named "R of" ("a member of X")
        inverse_named = (fit[1].matched or "").lower().endswith(" of")
        total += DIRECTION_FIT if forward != inverse_named \
            else -DIRECTION_FIT
    entity = _entity(mention, cand)
    prop = _property(fit[1])
    x = Var("x")
    edge = Edge(entity, prop, x) if forward else Edge(x, prop, entity)
    note = f"one hop, {'forward' if forward else 'inverse'}"
    if asked is not None:
        note += ", as asked"
    if forward not in held:
        note += ", no statement in the KB"
        if not held:
            note += NOT_HELD
    named_here = fit[0] >= NAMED_FIT or (
        asked is not None and fit[0] >= ASKED_FIT)
    notes = (note, NAMES_RELATION) if named_here else (note,)
    return QueryPlan((edge,), score=total, fit=fit[0], notes=notes)


def _is_place(roles: tuple[frozenset[str], frozenset[str]] | None) -> bool:
    if not roles:
        return False
    out_props, in_props = roles
    return bool(out_props & PLACE_OUT or in_props & PLACE_IN)


def _topics(a: Analysis, mentions: list[Mention]) -> list[Mention]:
    """The mentions a relation path may start from: those outside the question's frame
    when there are any ("Nous Infosystems is headquartered in a city of which Indian
    state?" starts from Nous Infosystems; "Indian" only qualifies the class asked for)."""
    return [m for m in mentions if m.span[0] not in a.frame] or mentions


def _ending_at_answer(edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """``edges`` with the variable the last one reaches renamed the answer, ``?x``."""
    reached = Var(f"y{len(edges)}")

    def node(n: object) -> object:
        return Var("x") if n == reached else n
    return tuple(Edge(node(e.subject), e.predicate, node(e.object)) for e in edges)


def _entity(mention: Mention, cand: Candidate) -> LinkingDecision:
    others = tuple(c for c in mention.candidates if c.id != cand.id)
    return LinkingDecision("entity", mention.text, (cand, *others), mention.text,
                           mention.start, mention.end)


def _property(cand: Candidate) -> LinkingDecision:
    return LinkingDecision("property", cand.matched or cand.label, (cand,))


#: the indefinite articles (questions in other languages come here read into English)
INDEFINITE = frozenset({"a", "an"})
#: words that may stand between the article and the category: "a famous poet", "an
#: Argentinian midfielder", "a football forward" (at most this many)
ARTICLE_REACH = 2


def _article_before(a: Analysis, mention: Mention) -> bool:
    """Whether an indefinite article precedes the mention, directly or across a word or
    two that describe it ("Name a poet", "Name a famous screenwriter"): a member of the
    category is asked for, not the category. Punctuation ends the description ("a
    model (person)")."""
    before = [w for w in a.words if w.end <= mention.start][-(ARTICLE_REACH + 1):]
    end = mention.start
    for word in reversed(before):
        if a.question[word.end:end].strip(" -"):
            return False
        if word.low in INDEFINITE:
            return end == mention.start or not _subject_of_clause(a, mention)
        if not word.low.isalpha() or word.low in DESCRIPTION_ENDS or word.low in WH_WORDS:
            return False
        end = word.start
    return False


def _subject_of_clause(a: Analysis, mention: Mention) -> bool:
    """Whether a verb follows the mention, not followed by a preposition itself: the
    mention is the subject of a clause about the noun before it ("a game atari
    developed"), not that noun's category ("a famous poet born in Lyon")."""
    after = [w.low for w in a.words if w.start >= mention.end][:2]
    return bool(after) and "VERB" in parts_of_speech(after[0]) and \
        (len(after) == 1 or after[1] not in DESCRIPTION_ENDS)


def _forward_too(plan: QueryPlan, plans: list[QueryPlan]) -> bool:
    """Whether the inverse one-hop ``plan`` (?x p e) has a forward twin (e p ?x) among
    ``plans``: a symmetric relation ("diplomatic relation", "shares border with")."""
    edge = plan.edges[0]
    return any(len(p.edges) == 1 and p.edges[0].subject == edge.object
               and isinstance(p.edges[0].predicate, LinkingDecision)
               and isinstance(edge.predicate, LinkingDecision)
               and p.edges[0].predicate.id == edge.predicate.id for p in plans)


def _of_before(a: Analysis, mention: Mention) -> bool:
    """Whether "of" (perhaps with an article) directly precedes the mention, and not as
    the end of a phrase that only says what it is ("the province of X")."""
    if a.description_before(mention.span):
        return False
    before = [w.low for w in a.words if w.end <= mention.start][-2:]
    before = [w for w in before if w not in ARTICLES]
    return bool(before) and before[-1] == "of"


def of_side(a: Analysis, piece: Sequence[Word]) -> str | None:
    """Which side of "the R of …" the answer is on, when the first word of ``piece`` is
    followed by "of": "head" when a thing follows ("the capital of the country where …"
    asks for the capital), "object" when the question word or its noun does ("the capital
    of what", "the capital of which country"); None when no "of" follows or it is stranded
    ("What is X the capital of?"). "whose R" asks for the R too ("a country whose capital
    is what")."""
    if not piece:
        return None
    earlier = [w.low for w in a.words if w.start < piece[0].start]
    if earlier and earlier[-1] == "whose":      # "a country whose capital is what"
        return "head"
    later = [w for w in a.words if w.start > piece[0].start]
    if len(later) < 2 or later[0].low != "of":
        return None
    thing = [w for w in later[1:] if w.low not in ARTICLES][:1]
    if not thing or not thing[0].low.isalnum():
        return None
    if thing[0].start in a.frame or thing[0].low in WH_WORDS:
        return "object"
    for w in later[2:]:     # "the capital of places on which continent": theirs
        if w.start in a.frame and w.low not in WH_WORDS:    # (not a relative "which")
            return "object"
        if w.low in AUXILIARIES or only_verb(w.low):
            break
    return "head"


def against_of(cand: Candidate | None, forward: bool, side: str, noun: str) -> bool:
    """Whether a hop along ``cand``'s property ``forward`` (or backward) to the answer
    reaches the other side of "the R of" than ``side`` asks, R (``noun``) being a word of
    the property's name: "the capital of Y" is Y's capital (forward along "capital",
    backward along a property named "capital of"); "the capital of what" is what the
    capital is the capital of. ("named in honour of whom" says nothing of the kind.)"""
    if cand is None:
        return False
    names = [(name or "").lower() for name in (cand.matched, cand.label)]
    if not any(root(noun) in {root(w) for w in name.split()} for name in names):
        return False
    inverse_named = any(name.endswith(" of") for name in names)
    return (forward == inverse_named) == (side == "head")


def _described_candidates(a: Analysis, m: Mention, ids: list[str], noun: str | None
                          ) -> list[str]:
    """Of ``m``'s first candidates ``ids``, those a class noun before it may describe:
    "the city of Québec" says which Québec (the city, the runner-up); "the stadium of
    Anfield" says what Anfield is; but "the capital of Brandenburg" asks the state's
    capital, though the runner-up, the city Brandenburg, is one: after "of", only a kind
    of place picks a runner-up."""
    return ids if noun in KINDS_OF_PLACE or not _of_before(a, m) else ids[:1]


#: a mention written "<lower-case word> of (the) <name>" (``_relation_of_name``)
_RELATION_OF = re.compile(r"([a-z]+) of (?:the )?(\S.*)")


def _clause_verb_after(a: Analysis, m: Mention, run: Sequence[Word]) -> bool:
    """Whether a verb (and nothing else English knows the word as) comes right after the
    mention, whose apposition is ``run``: "the genre Keith Hudson played" is the genre he
    played, a relative clause without "that", not a genre called Keith Hudson — unless
    "do" stands before the apposition, whose verb that is ("Where does the band X come
    from?")."""
    nxt = next((w for w in a.words if w.start >= m.span[1]), None)
    before = [w for w in a.words if w.end <= run[0].start and w.low not in ARTICLES]
    if before and before[-1].low in ("do", "does", "did"):
        return False
    return nxt is not None and nxt.low not in AUXILIARIES and only_verb(nxt.low)


def _may_name_a_person(noun: str) -> bool:
    """Whether ``noun`` may say what a person is ("the Estonian painter X", "antiques
    expert X"): a noun the lexicon knows as a kind of place or thing does not ("the genre
    Keith Hudson played" is the genre he played)."""
    return kind_of_words(noun) not in (PLACE, THING)


def _describes_unknown_name(a: Analysis, m: Mention, mentions: Sequence[Mention]) -> bool:
    """Whether ``m`` is a noun written in lower case ("the band") right before a
    capitalized word no mention covers ("the band Morvenkite"): it describes a name the
    KB does not know, and is no entity of the question itself."""
    if m.text != m.text.lower():
        return False
    words = [w for w in a.words if m.span[0] <= w.start < m.span[1]]
    nxt = next((w for w in a.words if w.start >= m.span[1]), None)
    return bool(words) and nxt is not None and nxt.text[:1].isupper() and \
        "NOUN" in parts_of_speech(words[-1].low) and \
        not any(o.span[0] <= nxt.start < o.span[1] for o in mentions if o.candidates)


def _pairs_of(mentions: list[Mention]) -> list[tuple[Mention, Mention]]:
    return [(m1, m2) for i, m1 in enumerate(mentions) for m2 in mentions[i + 1:]]


def _singulars(noun: str) -> list[str]:
    """The noun and its singular forms ("countries" → "country"; "cities" → "city")."""
    out = [noun]
    if noun.endswith("ies"):
        out.append(noun[:-3] + "y")
    if noun.endswith("es"):
        out.append(noun[:-2])
    if noun.endswith("s") and not noun.endswith("ss"):
        out.append(noun[:-1])
    if noun in ("people", "persons"):
        out.append("human")
    return list(dict.fromkeys(out))


def _english_nouns(words: Sequence[Word]) -> bool:
    """Whether every one of ``words`` is a word English knows or a capitalized one ("TV",
    "Greek"), the last a noun ("TV series", "the Greek singer"; not "horst bartel"
    before "field" in a question typed in lower case)."""
    parts = [parts_of_speech(w.low) for w in words]
    return all(p or w.text[:1].isupper() for p, w in zip(parts, words)) and \
        "NOUN" in parts[-1]
