#!/usr/bin/python3
"""A second held-out split ("fresh"), written on 2026-12-06 after stage 5 was bundled, for one
blind measurement: stages 4 and 5 were designed after reading the first held-out split's
results (docs/training.md), so that split is no longer blind. Nothing here was ever trained on,
selected on or looked at before the measurement: names, cities, pet names, statement and
question templates, openers, greetings and small talk absent from every list of chat_data,
chat_names and chat_smalltalk (checked by check_blind, case- and accent-free). Written in the
style of the first held-out split (two templates per fact and language), without trying any of
it on a model first.

eval_recall.py --split fresh plays its dialogues. BlindSplit, check_blind and blind_generator
serve every blind split (chat_third.py to chat_fifth.py)."""
import re
from dataclasses import dataclass

from chat_data import FACTS, Generator, phrasings, plain, questions
from chat_names import CITIES_EN, CITIES_FR, FIRST_NAMES, PET_NAMES

NAMES = ["Clovis", "Faustine", "Isaure", "Léandre", "Maïwenn", "Philippine", "Quitterie",
         "Sixtine", "Xavière", "Yolande", "Ambroise", "Blandine", "Cyprien", "Domitille",
         "Fenella", "Gideon", "Honora", "Keziah", "Lysander", "Perpetua", "Quinlan", "Tamsin",
         "Ulrika", "Vesna", "Wilhelmina", "Zéphyrin", "Oriane", "Barnaby", "Cordelia", "Evander",
         "Florimond", "Isolde"]
PET_NAMES_FRESH = ["Patapouf", "Zigzag", "Ricochet", "Moustache", "Galipette", "Tapioca",
                   "Chamallow", "Papillote", "Trognon", "Cabriole"]
CITIES = {"fr": ["Dieppe", "Saint-Malo", "Millau", "Figeac", "Honfleur", "Dinan", "Uzès", "Auch",
                 "Foix", "Mende"],
          "en": ["Canterbury", "Salisbury", "Whitby", "Kirkwall", "Kilkenny", "Stirling", "Penzance",
                 "Keswick", "Ludlow", "Tenby"]}
STATE = {
    "fr": {"name": ["on me connaît sous le prénom de {}", "moi, on m'a baptisé {}"],
           "age": ["cela fait {} ans que je suis né", "mon âge exact : {} ans"],
           "city": ["je paie mon loyer à {}", "je me suis installé du côté de {}"],
           "pet": ["{m} a reçu le nom de {}", "nous avons {s} baptisé {}"],
           "date": ["j'ai vu le jour le {}", "on fête mon anniversaire le {}"],
           "number": ["le nombre que je choisis toujours est {}",
                      "mon nombre fétiche à moi, c'est {}"]},
    "en": {"name": ["the name on my passport is {}", "I was christened {}"],
           "age": ["I've had {} birthdays", "I count {} years"],
           "city": ["I pay rent in {}", "I've made my home in {}"],
           "pet": ["my {s} has the name {}", "we keep a {s} named {}"],
           "date": ["my birth date is {}", "I get a year older on {}"],
           "number": ["my go-to number is {}", "the number I always choose is {}"]},
}
ASK = {"fr": ["Te souviens-tu de {} ?", "Qu'avais-je dit pour {} ?"],
       "en": ["Do you have {} in memory?", "Would you say {} back to me?"]}
ASK_ONE_FRESH = {
    "fr": {"name": ["Je m'appelle comment, déjà ?"], "age": ["Mon âge, tu l'as gardé en tête ?"],
           "city": ["Je vis dans quelle ville, déjà ?"],
           "pet": ["Et mon animal, il s'appelle comment ?"],
           "date": ["Mon anniversaire tombe quel jour ?"],
           "number": ["Mon nombre favori, c'est lequel ?"]},
    "en": {"name": ["Tell me my name once more?"], "age": ["Remind me how old I am?"],
           "city": ["Which town did I say I live in?"], "pet": ["What did I call my pet?"],
           "date": ["On what day is my birthday?"], "number": ["Which number is my favourite?"]},
}
OPENERS = {"fr": ["", "Pour la petite histoire, ", "À propos, ", "Au fond, "],
           "en": ["", "By the by, ", "For what it's worth, ", "Truth be told, "]}
GREETINGS = {"fr": ["Ohé", "Salutations"], "en": ["Howdy", "Hiya"]}
SMALL_TALK_FRESH = {
    "fr": [("Mon train a du retard.", "Courage, il finira par arriver."),
           ("J'ai perdu mes clés.", "J'espère que tu vas les retrouver."),
           ("Ma plante a fait une fleur.", "Quelle bonne nouvelle !"),
           ("Je range le garage.", "Bon rangement !"),
           ("Le voisin fait du bruit.", "Ça peut être pénible."),
           ("J'ai mal au dos.", "Prends soin de toi."),
           ("Je repeins le salon.", "Bon courage pour les travaux !"),
           ("Il y a des bouchons ce matin.", "La patience, ça aide.")],
    "en": [("My train is late.", "Hang in there, it will come."),
           ("I lost my keys.", "I hope you find them soon."),
           ("My plant has a flower.", "What good news!"),
           ("I'm clearing out the garage.", "Happy tidying!"),
           ("The neighbours are noisy.", "That can be tiring."),
           ("My back hurts.", "Take care of yourself."),
           ("I'm painting the living room.", "Good luck with the work!"),
           ("Traffic is awful this morning.", "Patience helps.")],
}


@dataclass
class BlindSplit:
    """The names, places and phrasings of a held-out split written for a blind measurement."""
    names: list
    pet_names: list
    cities: dict
    state: dict
    ask: dict
    ask_one: dict
    openers: dict
    greetings: dict
    small_talk: dict
    strict: bool = False  # check_blind also rejects near-copies that differ in punctuation only

    def texts(self, lang: str) -> list[str]:
        """Every phrasing of `lang`, questions filled with the noun phrases asked for."""
        t = [s for f in FACTS for s in self.state[lang][f]] + questions(self.ask[lang], lang)
        t += [q for qs in self.ask_one[lang].values() for q in qs]
        t += self.openers[lang][1:] + self.greetings[lang]
        return t + [u for u, _ in self.small_talk[lang]]

    def values(self) -> list[str]:
        return self.names + self.pet_names + self.cities["fr"] + self.cities["en"]


FRESH = BlindSplit(NAMES, PET_NAMES_FRESH, CITIES, STATE, ASK, ASK_ONE_FRESH, OPENERS, GREETINGS,
                   SMALL_TALK_FRESH)


def _inside(part: str, text: str) -> bool:
    """`part` in `text` as whole words ("hi" is not inside "which")."""
    return re.search(r"(?<!\w)" + re.escape(part) + r"(?!\w)", text) is not None


def _bare(text: str) -> str:
    """`text`'s words (placeholders and apostrophes kept) without punctuation."""
    return " ".join(re.findall(r"[\w{}']+", plain(text)))


def check_blind(split: BlindSplit, earlier: tuple = ()):
    """No text of `split` is, or is inside, any text of the generator's lists (training or
    held-out) or of the `earlier` blind splits, and none of its names, pet names or cities is
    in any of them, whatever the case and accents. Lists every fault, not just the first."""
    known = {plain(n) for n in FIRST_NAMES + PET_NAMES + CITIES_FR + CITIES_EN}
    known |= {plain(v) for e in earlier for v in e.values()}
    faults = [f"blind value {v!r} is in a list" for v in split.values() if plain(v) in known]
    for lang in split.state:
        texts = phrasings(lang) + [t for e in earlier for t in e.texts(lang)]
        others = [plain(o).strip(" ,") for o in texts if o.strip()]
        # strict: texts of three words or more, punctuation aside
        bare = [_bare(o) for o in texts if split.strict and len(_bare(o).split()) >= 3]
        for t in split.texts(lang):
            for p, against in ((plain(t).strip(" ,"), others), (_bare(t), bare)):
                faults += [f"blind text {t!r} overlaps {o!r}" for o in against
                           if _inside(p, o) or _inside(o, p)]
    assert not faults, "\n".join(dict.fromkeys(faults))  # every fault at once, in order


def blind_generator(split: BlindSplit, seed: int, earlier: tuple = ()) -> Generator:
    """A held-out Generator whose names, places and phrasings are the split's."""
    check_blind(split, earlier)
    g = Generator(seed, True)
    g.names, g.pet_names, g.cities = split.names, split.pet_names, split.cities
    g.phr.state, g.phr.ask, g.phr.ask_one = split.state, split.ask, split.ask_one
    g.phr.openers, g.phr.greet, g.small_talk = split.openers, split.greetings, split.small_talk
    return g
