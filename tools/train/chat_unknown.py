"""Unknown words in training phrasings (train.py --unknown-words): a user's statement is mostly
words the model has never seen ("I was christened Clovis"), and a model that has only seen the
generator's templates reads such a statement as some other fact, or not at all (the blind
split, docs/training.md). Here a share of the training statements and questions get made-up
words: inserted anywhere (the fact's own words kept), or, for a name, an age or a date, in
place of some or all of the template's words, so that the value's shape decides: a word is a
name, a number an age, a day and month a birthday. City, pet and favourite-number statements
keep their words (a made-up word is inserted only): without them those facts look like a name
or an age.

Made-up words are pseudo-words (chat_names.pseudo_name, in small letters) that are no word of
any phrasing of the generator and no word or value of the blind splits (chat_fresh,
chat_third), so that those splits' words stay unseen."""
from __future__ import annotations

import random
import re

from chat_data import BIRTHDAY_AGES, NOUN_YOUR, phrasings, plain
from chat_fresh import FRESH
from chat_names import pseudo_name
from chat_third import THIRD

SHAPED = ("name", "age", "date")  # facts whose value's shape tells them apart


def _words(texts: list[str]) -> set[str]:
    return {w for t in texts for w in re.findall(r"\w+", plain(t))}


def _phrasings() -> list[str]:
    """The generator's texts and the first two blind splits'. The age forms of --birthday-ages
    (added after stage 6) are left out, so that stage 6's dialogues stay as they were; the later
    blind splits' values were searched in every training set instead (docs/training.md)."""
    out = []
    for lang in ("fr", "en"):
        out += [t for t in phrasings(lang) if t not in BIRTHDAY_AGES[lang]]
        out += list(NOUN_YOUR[lang].values()) + FRESH.texts(lang) + THIRD.texts(lang)
    return out + FRESH.values() + THIRD.values()


KNOWN_WORDS = _words(_phrasings())


def unknown_word(rng: random.Random) -> str:
    while True:
        w = pseudo_name(rng).lower()
        if plain(w) not in KNOWN_WORDS:
            return w


def insert_unknown(rng: random.Random, template: str) -> str:
    """1 to 3 made-up words inserted between the template's words."""
    words = template.split(" ")
    for _ in range(rng.randint(1, 3)):
        words.insert(rng.randint(0, len(words)), unknown_word(rng))
    return " ".join(words)


def garble_statement(rng: random.Random, template: str, fact: str) -> str:
    """A statement template with made-up words: inserted (60 %), or for a name, an age or a date
    in place of some of its words (25 %) or of all of them (15 %). Placeholders stay."""
    u = rng.random()
    if fact not in SHAPED or u < 0.6:
        return insert_unknown(rng, template)
    if u < 0.85:
        words = [w if "{" in w or rng.random() < 0.5 else unknown_word(rng)
                 for w in template.split(" ")]
        return " ".join(words)
    words = [unknown_word(rng) for _ in range(rng.randint(1, 4))]
    words.insert(rng.randint(0, len(words)), "{}")
    return " ".join(words)
