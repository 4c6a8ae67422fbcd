#!/usr/bin/python3
"""Generated dialogues for the bundled chat model (kazeia-chat): a user states facts about
themselves (first name, age, city, a pet, a birthday, a favourite number) over one or more
turns, chats in between, and later asks for them back in other words; the assistant answers from
the conversation ("Tu t'appelles Marie et tu as 34 ans."). French and English. Some in-between
turns (--repeat-rate in train.py) are copy exercises ("Répète après moi : Roelri, 5518, Caen"):
every token of their reply is a copy from the context, a dense signal for the copying that
recall needs (docs/training.md: a first run without them had not started copying after 550
steps; the bundled run, with them and a smaller model, started after about 1200 steps; not a
controlled comparison).

Deterministic for a seed. Every list is split into a training part and a held-out part (every
HELDOUT_EVERY-th entry): held-out dialogues use only held-out first names, pet names, cities and
phrasings, so they measure copying from the context, not memory. Half of the training names
are random pseudo-names built from syllables, so that a name is never worth memorising.

    /usr/bin/python3 tools/train/chat_data.py --show 3        # print a few dialogues
"""
from __future__ import annotations

import argparse
import random

HELDOUT_EVERY = 4  # entry i of a list is held out iff i % 4 == 3

FIRST_NAMES = """Marie Jean Pierre Sophie Lucas Camille Hugo Chloé Louis Emma Nathan Léa Paul
Manon Thomas Julie Antoine Claire Nicolas Sarah Julien Laura Maxime Inès Mathieu Jade Alexandre
Zoé Guillaume Anaïs Romain Lucie Adrien Elodie Baptiste Margaux Clément Océane Vincent Pauline
Olivier Mathilde Quentin Juliette Arthur Eloïse Théo Agathe Raphaël Noémie Gabriel Louise Jules
Alice Victor Amélie Étienne Céline Benoît Hélène François Valérie Gaëlle Hervé Josiane Yannick
Brigitte Thierry Sylvie Pascal Nadia Karim Yasmine Mehdi Leïla Samir Fatou Moussa Aïcha
John Mary James Emily Michael Sarah David Jessica Daniel Olivia William Sophia Robert Grace
Thomas Hannah Andrew Chloe Matthew Lily Joseph Ella Benjamin Ava Samuel Ruby Henry Alice Oliver
Charlotte George Amelia Edward Isla Harry Freya Jack Poppy Oscar Evie Charlie Daisy Leo Rosie
Archie Phoebe Alfie Imogen Finley Holly Ethan Megan Ryan Laura Peter Helen Simon Fiona Mark
Rachel Paul Karen Steven Julia Kevin Nina Brian Tara Derek Wendy Gavin Norah Felix Iris Miles
Stella Hugo Ivy Rupert Hazel Angus Maisie Declan Orla Rajesh Priya Arjun Kiran Wei Mei Kenji
Yuki Diego Lucia Mateo Sofia Omar Amira Tariq Zara""".split()

PET_NAMES = """Minou Félix Rex Kiki Caramel Noisette Pompon Filou Moka Oscar Titi Ficelle Biscuit
Praline Réglisse Tigrou Chaussette Plume Pépite Gribouille Vanille Cannelle Nougat Pistache Tic
Whiskers Buddy Max Bella Charlie Luna Rocky Daisy Coco Milo Pepper Ginger Shadow Smokey Biscuit
Muffin Pickles Nugget Bubbles Sunny Peanut Socks Ziggy Waffles Toffee Mango Noodle Pixel Bandit
Sushi Hazel Patch Tango Marble""".split()

CITIES_FR = """Paris Lyon Marseille Toulouse Nice Nantes Strasbourg Montpellier Bordeaux Lille
Rennes Reims Toulon Grenoble Dijon Angers Nîmes Brest Tours Limoges Amiens Perpignan Metz
Besançon Orléans Rouen Caen Nancy Avignon Poitiers Pau Calais Annecy Bayonne Colmar Valence
Chambéry Quimper Lorient Bruxelles Genève Lausanne Liège Montréal Québec Namur""".split()

CITIES_EN = """London Manchester Liverpool Leeds Bristol Glasgow Edinburgh Cardiff Belfast Dublin
Oxford Cambridge York Bath Brighton Norwich Leicester Nottingham Sheffield Newcastle Aberdeen
Dundee Exeter Plymouth Chicago Boston Seattle Denver Austin Dallas Phoenix Atlanta Miami Portland
Toronto Vancouver Ottawa Sydney Melbourne Auckland Wellington Perth Adelaide Brisbane""".split()

# (indefinite, possessive "ton/ta", possessive "mon/ma") in French; the English noun.
SPECIES_FR = [("un chat", "ton chat", "mon chat"), ("un chien", "ton chien", "mon chien"),
              ("un lapin", "ton lapin", "mon lapin"), ("un perroquet", "ton perroquet",
                                                        "mon perroquet"),
              ("une tortue", "ta tortue", "ma tortue"), ("un hamster", "ton hamster",
                                                         "mon hamster"),
              ("un poisson rouge", "ton poisson rouge", "mon poisson rouge"),
              ("une chatte", "ta chatte", "ma chatte")]
SPECIES_EN = ["cat", "dog", "rabbit", "parrot", "turtle", "hamster", "goldfish", "pony"]

MONTHS_FR = "janvier février mars avril mai juin juillet août septembre octobre novembre décembre"
MONTHS_EN = "January February March April May June July August September October November December"
SYLLABLES = """ka lo mi ra te su bi no va re li do fa ne po ma ti ru se ga lu be ko di na
zo ri ta mo ve ju la pe si ro mar tin el an ber cor dan fel gil hal jor ken lor mel nor per
ros sel tor val wen yan zel""".split()

# Phrasings: lists whose every HELDOUT_EVERY-th entry is kept for the held-out set.
STATE = {
    "fr": {
        "name": ["je m'appelle {}", "mon prénom est {}", "moi c'est {}", "mon nom est {}",
                 "on m'appelle {}", "je me prénomme {}", "tout le monde m'appelle {}",
                 "mon petit nom est {}"],
        "age": ["j'ai {} ans", "mon âge est de {} ans", "je viens d'avoir {} ans",
                "j'ai eu {} ans cette année", "je suis âgé de {} ans", "j'ai {} ans maintenant",
                "j'ai déjà {} ans", "je vais sur mes {} ans"],
        "city": ["j'habite à {}", "je vis à {}", "ma ville, c'est {}", "je réside à {}",
                 "je suis installé à {}", "ma maison est à {}", "je demeure à {}",
                 "j'ai emménagé à {}"],
        "pet": ["j'ai {s} qui s'appelle {}", "{m} s'appelle {}", "j'ai {s} nommé {}",
                "{m} se nomme {}", "chez moi il y a {s}, {}", "le nom de {m} est {}",
                "je vis avec {s} appelé {}", "{m}, c'est {}"],
        "date": ["mon anniversaire est le {}", "je suis né le {}", "mon anniversaire tombe le {}",
                 "je fête mon anniversaire le {}", "ma date de naissance, c'est le {}",
                 "je souffle mes bougies le {}", "on me souhaite mon anniversaire le {}",
                 "je suis née le {}"],
        "number": ["mon nombre préféré est {}", "mon chiffre porte-bonheur est {}",
                   "mon nombre fétiche est {}", "le nombre que je préfère est {}",
                   "j'adore le nombre {}", "mon nombre favori est {}",
                   "mon numéro préféré est {}", "le nombre qui me porte chance est {}"],
    },
    "en": {
        "name": ["my name is {}", "I'm {}", "call me {}", "people call me {}", "the name's {}",
                 "I am called {}", "everyone calls me {}", "my first name is {}"],
        "age": ["I'm {} years old", "my age is {}", "I just turned {}", "I turned {} this year",
                "I am {} years old", "I'm {} now", "I'm aged {}", "I'll stay {} until my birthday"],
        "city": ["I live in {}", "I'm from {}", "my home town is {}", "I reside in {}",
                 "I'm based in {}", "home for me is {}", "I moved to {}", "I've settled in {}"],
        "pet": ["I have a {s} called {}", "my {s} is named {}", "I've got a {s} named {}",
                "I own a {s} called {}", "my {s}'s name is {}", "I live with a {s} named {}",
                "there's a {s} at home, {}", "our {s} is called {}"],
        "date": ["my birthday is on {}", "I was born on {}", "my birthday falls on {}",
                 "I celebrate my birthday on {}", "my date of birth is {}",
                 "I blow out my candles on {}", "my birthday is {}", "I was born on the day of {}"],
        "number": ["my favourite number is {}", "my lucky number is {}",
                   "the number I like best is {}", "my number is {}", "I love the number {}",
                   "my favorite number is {}", "my special number is {}",
                   "the number that brings me luck is {}"],
    },
}
# What the user asks for, as a noun phrase ("Rappelle-moi {mon prénom et mon âge}.").
NOUN = {
    "fr": {"name": "mon prénom", "age": "mon âge", "city": "ma ville",
           "pet": "le nom de mon animal", "date": "la date de mon anniversaire",
           "number": "mon nombre préféré"},
    "en": {"name": "my name", "age": "my age", "city": "where I live", "pet": "my pet's name",
           "date": "my birthday", "number": "my favourite number"},
}
ASK = {
    "fr": ["Rappelle-moi {}.", "Tu te rappelles {} ?", "Dis-moi {}.", "Peux-tu me redire {} ?",
           "Tu connais {} ?", "Qu'est-ce que tu sais sur {} ?", "Redis-moi {}, s'il te plaît.",
           "Est-ce que tu te rappelles {} ?"],
    "en": ["Remind me of {}.", "Do you remember {}?", "Tell me {}.", "Can you repeat {}?",
           "What do you know about {}?", "Can you tell me {}?", "Tell me {} again, please.",
           "Do you still remember {}?"],
}
ASK_ONE = {  # direct questions about one fact
    "fr": {"name": ["Comment je m'appelle ?", "Quel est mon prénom ?", "C'est quoi mon prénom ?",
                    "Tu sais comment je m'appelle ?"],
           "age": ["Quel âge j'ai ?", "Quel âge ai-je ?", "J'ai quel âge ?", "Tu sais mon âge ?"],
           "city": ["Où est-ce que j'habite ?", "Où j'habite ?", "Dans quelle ville je vis ?",
                    "Tu sais où je vis ?"],
           "pet": ["Comment s'appelle mon animal ?", "Quel est le nom de mon animal ?",
                   "Mon animal s'appelle comment ?", "Tu te rappelles le nom de mon animal ?"],
           "date": ["Quand est mon anniversaire ?", "C'est quand mon anniversaire ?",
                    "Quelle est la date de mon anniversaire ?", "Je suis né quel jour ?"],
           "number": ["Quel est mon nombre préféré ?", "C'est quoi mon nombre préféré ?",
                      "Tu connais mon nombre préféré ?", "Mon nombre préféré, c'est lequel ?"]},
    "en": {"name": ["What's my name?", "What is my name?", "Who am I?", "Do you know my name?"],
           "age": ["How old am I?", "What's my age?", "What is my age?", "Do you know my age?"],
           "city": ["Where do I live?", "Which city do I live in?", "Where am I from?",
                    "Do you know where I live?"],
           "pet": ["What is my pet called?", "What's my pet's name?", "What's the name of my pet?",
                   "Do you know my pet's name?"],
           "date": ["When is my birthday?", "What's my birthday?", "When was I born?",
                    "Do you know my birthday?"],
           "number": ["What's my favourite number?", "What is my favourite number?",
                      "Which number do I like best?", "Do you know my favourite number?"]},
}
GREET = {"fr": ["Bonjour", "Salut", "Coucou", "Bonsoir", "Hello", "Bonjour à toi", "Salut toi",
                "Re-bonjour"],
         "en": ["Hello", "Hi", "Hey", "Good morning", "Good evening", "Hi there", "Hey there",
                "Greetings"]}
SMALL_TALK = {
    "fr": [("Il fait beau aujourd'hui.", "Oui, c'est une belle journée."),
           ("Quel temps il fait chez toi ?",
            "Je n'ai pas de fenêtre, mais j'espère qu'il fait beau."),
           ("Comment ça va ?", "Très bien, merci ! Et toi ?"),
           ("Je suis un peu fatigué.", "Pense à te reposer un peu."),
           ("J'aime beaucoup la musique.", "La musique, c'est formidable."),
           ("Tu aimes lire ?", "J'aime surtout discuter avec toi."),
           ("Je viens de manger une pizza.", "Bon appétit, même si c'est déjà fini !"),
           ("Quelle journée !", "J'espère qu'elle s'est bien passée."),
           ("Tu es un assistant ?", "Oui, je suis un petit assistant."),
           ("Il pleut depuis ce matin.", "Un bon moment pour rester au chaud."),
           ("J'ai regardé un film hier soir.", "J'espère qu'il t'a plu."),
           ("Je vais faire du vélo.", "Bonne balade !"),
           ("Merci pour ton aide.", "Avec plaisir !"),
           ("Tu es gentil.", "Merci, toi aussi."),
           ("Je travaille beaucoup en ce moment.", "N'oublie pas de faire des pauses."),
           ("J'aime le chocolat.", "Le chocolat, c'est délicieux."),
           ("On est lundi.", "Une nouvelle semaine commence."),
           ("Je prépare un gâteau.", "Miam, bonne cuisine !"),
           ("C'est les vacances bientôt.", "Profite bien de ton repos."),
           ("J'ai un examen demain.", "Bon courage pour ton examen !"),
           ("Je bois un café.", "Un café, ça réveille."),
           ("Tu parles français ?", "Oui, je parle français et anglais."),
           ("Je me promène au parc.", "Profite bien de la promenade."),
           ("Raconte-moi quelque chose.", "Je suis petit, mais j'écoute bien.")],
    "en": [("The weather is nice today.", "Yes, it's a lovely day."),
           ("How are you?", "I'm fine, thank you! And you?"),
           ("I'm a bit tired.", "Try to get some rest."),
           ("I really like music.", "Music is wonderful."),
           ("Do you like reading?", "I mostly like chatting with you."),
           ("I just had a pizza.", "Enjoy your meal, even if it's already gone!"),
           ("What a day!", "I hope it went well."),
           ("Are you an assistant?", "Yes, I'm a small assistant."),
           ("It's been raining all morning.", "A good time to stay inside."),
           ("I watched a film last night.", "I hope you enjoyed it."),
           ("I'm going for a bike ride.", "Have a nice ride!"),
           ("Thanks for your help.", "You're welcome!"),
           ("You're kind.", "Thank you, so are you."),
           ("I'm working a lot these days.", "Don't forget to take breaks."),
           ("I love chocolate.", "Chocolate is delicious."),
           ("It's Monday.", "A new week begins."),
           ("I'm baking a cake.", "Yum, happy baking!"),
           ("The holidays are coming.", "Enjoy your time off."),
           ("I have an exam tomorrow.", "Good luck with your exam!"),
           ("I'm drinking a coffee.", "Coffee wakes you up."),
           ("Do you speak English?", "Yes, I speak English and French."),
           ("I'm walking in the park.", "Enjoy your walk."),
           ("Tell me something.", "I'm small, but I listen well."),
           ("What's up?", "Not much, I'm here to chat.")],
}
REPEAT = {  # copy exercises: the reply is the list, word for word
    "fr": ["Répète après moi : {}", "Peux-tu répéter : {}", "Redis exactement : {}",
           "Répète cette liste : {}", "Recopie : {}", "Dis comme moi : {}",
           "Répète ceci, s'il te plaît : {}", "Écoute et répète : {}"],
    "en": ["Repeat after me: {}", "Can you repeat: {}", "Say exactly this: {}",
           "Repeat this list: {}", "Copy this: {}", "Say it like me: {}",
           "Please repeat this: {}", "Listen and repeat: {}"],
}
ACK = {"fr": ["D'accord, c'est noté.", "Très bien, je m'en souviendrai.", "Merci de me le dire.",
              "C'est noté !"],
       "en": ["Got it, I'll remember that.", "Okay, noted.", "Thanks for telling me.",
              "Noted!"]}
GREET_BACK = {"fr": "Enchanté, {} !", "en": "Nice to meet you, {}!"}
SYSTEM = {"fr": ["Tu es un assistant serviable.", "Tu es Kazeia, un petit assistant.",
                 "Réponds brièvement."],
          "en": ["You are a helpful assistant.", "You are Kazeia, a small assistant.",
                 "Answer briefly."]}
FACTS = ["name", "age", "city", "pet", "date", "number"]


def split(items: list, heldout: bool) -> list:
    return [x for i, x in enumerate(items) if (i % HELDOUT_EVERY == HELDOUT_EVERY - 1) == heldout]


def pseudo_name(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()


class Generator:
    """Draws dialogues from the training lists (heldout=False) or the held-out ones."""

    def __init__(self, seed: int, heldout: bool, repeat_rate: float = 0.0):
        self.rng = random.Random(seed)
        self.repeat_rate = repeat_rate  # share of the in-between turns that are copy exercises
        self.heldout = heldout
        h = heldout
        names, pets = list(dict.fromkeys(FIRST_NAMES)), list(dict.fromkeys(PET_NAMES))
        seen = set(split(names, False)) | set(split(pets, False))
        # held-out names: never in a training list, whichever list
        self.names = [n for n in split(names, h) if not h or n not in seen]
        self.pet_names = [n for n in split(pets, h) if not h or n not in seen]
        self.cities = {"fr": split(CITIES_FR, h), "en": split(CITIES_EN, h)}
        self.state = {lang: {f: split(v, h) for f, v in d.items()} for lang, d in STATE.items()}
        self.ask = {lang: split(v, h) for lang, v in ASK.items()}
        self.ask_one = {lang: {f: split(v, h) for f, v in d.items()}
                        for lang, d in ASK_ONE.items()}
        self.small_talk = {lang: split(v, h) for lang, v in SMALL_TALK.items()}
        self.repeat = {lang: split(v, h) for lang, v in REPEAT.items()}
        self.forbidden = set(split(names, True)) | set(split(pets, True))

    def name(self, pool: list[str]) -> str:
        r = self.rng
        if self.heldout or r.random() < 0.5:
            return r.choice(pool)
        while True:  # pseudo-names never collide with held-out names
            n = pseudo_name(r)
            if n not in self.forbidden:
                return n

    def facts(self, lang: str) -> dict:
        r = self.rng
        sp = r.randrange(len(SPECIES_FR))
        months = (MONTHS_FR if lang == "fr" else MONTHS_EN).split()
        day, month = r.randint(1, 28), r.choice(months)
        return {
            "name": self.name(self.names),
            "age": str(r.randint(16, 89)),
            "city": r.choice(self.cities[lang]),
            "pet": (sp, self.name(self.pet_names)),
            "date": f"{day} {month}" if lang == "fr" else f"{month} {day}",
            "number": str(r.choice([r.randint(2, 99), r.randint(100, 9999)])),
        }

    # --- sentences ---------------------------------------------------------------------------

    def statement(self, lang: str, fact: str, v) -> str:
        t = self.rng.choice(self.state[lang][fact])
        if fact == "pet":
            sp, pet = v
            if lang == "fr":
                s, _, m = SPECIES_FR[sp]
                return t.replace("{s}", s).replace("{m}", m).format(pet)
            return t.replace("{s}", SPECIES_EN[sp]).format(pet)
        return t.format(v)

    @staticmethod
    def answer_clause(lang: str, fact: str, v) -> str:
        if fact == "pet":
            sp, pet = v
            return (f"{SPECIES_FR[sp][1]} s'appelle {pet}" if lang == "fr"
                    else f"your {SPECIES_EN[sp]} is called {pet}")
        return {"fr": {"name": "tu t'appelles {}", "age": "tu as {} ans", "city": "tu habites à {}",
                       "date": "ton anniversaire est le {}", "number": "ton nombre préféré est {}"},
                "en": {"name": "your name is {}", "age": "you are {} years old",
                       "city": "you live in {}", "date": "your birthday is {}",
                       "number": "your favourite number is {}"}}[lang][fact].format(v)

    @staticmethod
    def join(lang: str, parts: list[str]) -> str:
        conj = " et " if lang == "fr" else " and "
        s = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + conj + parts[-1]
        return s[0].upper() + s[1:]

    def answer(self, lang: str, asked: list[str], known: dict) -> str:
        told = [f for f in asked if f in known]
        missing = [f for f in asked if f not in known]
        out = []
        if told:
            out.append(self.join(lang, [self.answer_clause(lang, f, known[f]) for f in told]) + ".")
        if missing:
            nouns = self.join(lang, [NOUN[lang][f] for f in missing])
            nouns = nouns[0].lower() + nouns[1:]
            out.append(f"Tu ne m'as pas encore dit {nouns}." if lang == "fr"
                       else f"You haven't told me {nouns} yet.")
        return " ".join(out)

    def question(self, lang: str, asked: list[str]) -> str:
        r = self.rng
        if len(asked) == 1 and r.random() < 0.5:
            return r.choice(self.ask_one[lang][asked[0]])
        nouns = self.join(lang, [NOUN[lang][f] for f in asked])
        return r.choice(self.ask[lang]).format(nouns[0].lower() + nouns[1:])

    def tell(self, lang: str, told: list[str], facts: dict, first: bool) -> tuple[str, str]:
        r = self.rng
        clauses = [self.statement(lang, f, facts[f]) for f in told]
        text = self.join(lang, clauses) + r.choice([".", ".", "!"])
        if first and r.random() < 0.7:
            text = r.choice(GREET[lang]) + ", " + text[0].lower() + text[1:]
        reply = (GREET_BACK[lang].format(facts["name"]) if "name" in told
                 else r.choice(ACK[lang]))
        return text, reply

    def copy_exercise(self, lang: str) -> tuple[str, str]:
        """A list of names, numbers and cities to repeat: every reply token is a copy, which
        teaches the model to copy from its context early in training."""
        r = self.rng
        items = []
        for _ in range(r.randint(2, 6)):
            u = r.random()
            items.append(self.name(self.names) if u < 0.4 else self.name(self.pet_names)
                         if u < 0.55 else str(r.randint(1, 9999)) if u < 0.8
                         else r.choice(self.cities[lang]))
        text = ", ".join(items)
        return r.choice(self.repeat[lang]).format(text), text + "."

    # --- dialogues ---------------------------------------------------------------------------

    def dialogue(self, n_turns: int, lang: str | None = None, plan: list | None = None) -> dict:
        """A dialogue of n_turns user messages, each answered.
        plan (optional): per turn ("tell", [facts]), ("chat",), ("repeat",) or ("ask", [facts])."""
        r = self.rng
        lang = lang or r.choice(["fr", "en"])
        facts = self.facts(lang)
        if plan is None:
            plan = self.random_plan(n_turns)
        messages = []
        if r.random() < 0.2:
            messages.append({"role": "system", "content": r.choice(SYSTEM[lang])})
        known: dict = {}
        for i, step in enumerate(plan):
            if step[0] == "tell":
                user, reply = self.tell(lang, step[1], facts, i == 0)
                known.update({f: facts[f] for f in step[1]})
            elif step[0] == "chat":
                user, reply = r.choice(self.small_talk[lang])
            elif step[0] == "repeat":
                user, reply = self.copy_exercise(lang)
            else:
                user, reply = self.question(lang, step[1]), self.answer(lang, step[1], known)
            messages += [{"role": "user", "content": user},
                         {"role": "assistant", "content": reply}]
        return {"lang": lang, "facts": facts, "plan": plan, "messages": messages}

    def random_plan(self, n_turns: int) -> list:
        r = self.rng
        todo = FACTS[:]
        r.shuffle(todo)
        plan, known = [], []
        for i in range(n_turns):
            # Most dialogues end with a question; the others with a statement, small talk or a
            # copy exercise, so that every kind of reply is also learnt in the form it has at
            # inference (the last turn, after the template's empty think block).
            last = i == n_turns - 1 and r.random() < 0.6
            u = r.random()
            if not last and todo and (i == 0 or u < 0.45):
                k = min(len(todo), r.choice([1, 1, 2, 2, 3]))
                told, todo = todo[:k], todo[k:]
                plan.append(("tell", told))
                known += told
            elif not last and (u < 0.75 or not known):
                plan.append(("repeat",) if r.random() < self.repeat_rate else ("chat",))
            else:
                pool = known if (known and r.random() > 0.05) else FACTS
                asked = r.sample(pool, min(len(pool), r.choice([1, 1, 2, 2, 3])))
                plan.append(("ask", asked))
        return plan


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=3)
    ap.add_argument("--heldout", action="store_true")
    args = ap.parse_args()
    g = Generator(args.seed, args.heldout)
    for _ in range(args.show):
        d = g.dialogue(g.rng.randint(2, 8))
        for m in d["messages"]:
            print(f"{m['role']:>9}: {m['content']}")
        print()


if __name__ == "__main__":
    main()
