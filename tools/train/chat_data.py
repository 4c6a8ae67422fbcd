#!/usr/bin/python3
"""Generated dialogues for the bundled chat model (kazeia-chat): a user states facts about
themselves (first name, age, city, a pet, a birthday, a favourite number) over one or more
turns, chats in between, and later asks for them back in other words; the assistant answers from
the conversation ("Tu t'appelles Marie et tu as 34 ans."). French and English.

The assistant acknowledges every fact it is told, in the form it will answer with ("Enchanté,
Marie ! C'est noté : tu as 34 ans."): the facts are understood where they are said, a few tokens
away, and a later answer copies a fixed form from the history. Some in-between turns
(--repeat-rate in train.py) are copy exercises ("Répète après moi : Roelri, 5518, Caen"), a
dense signal for the copying that recall needs.

Not every statement is acknowledged with its values (NO_ACK_RATE): then a later answer copies
the fact from the user's own words. Some in-between turns are someone else's facts ("Ma sœur
s'appelle Léa et elle a 12 ans."), distractors that are never an answer about the user.

Held out: every list is split into a training part and a held-out part. Held-out dialogues use
held-out first names (real names in no training list), pet names and cities, and held-out
phrasings: statement and question templates, openers and greetings that no training dialogue
contains, whatever the case and accents (templates, openers and questions are checked when a
Generator is built). Training phrasings are composed: a template per fact (12 to 52 per fact
and language), an opener, a joiner, a tail after the statement, end punctuation, and variants
of case, accents and typing errors on the template words (never on the values), so that a model
cannot succeed by memorising phrasings. Training names are real (45 %), pronounceable
pseudo-names (chat_names.pseudo_name, 40 %) or arbitrary strings (chat_names.arbitrary_name,
15 %: letter salad in any case, compounds), and training numbers have 1 to 8 digits, so that no
value is worth memorising and any string can be one.

Small talk comes from a short list of fixed pairs, or (composed_talk, training only) from
chat_smalltalk's composed messages: a message without a fact is answered without one, whatever
its words. With unknown_words (train.py --unknown-words, training only), a share of the
statements, questions and composed small talk carry made-up words (chat_unknown).

Deterministic for a seed.

    /usr/bin/python3 tools/train/chat_data.py --show 3        # print a few dialogues
"""
from __future__ import annotations

import argparse
import random

from chat_names import (CITIES_EN, CITIES_FR, FIRST_NAMES, PET_NAMES, arbitrary_name, long_name,
                        pseudo_name)
from chat_smalltalk import SMALL_TALK_COMPOSED

HELDOUT_EVERY = 4  # entry i of a name, city, greeting or small-talk list is held out iff i % 4 == 3

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

# Statement templates per fact: {} is the value; for a pet {s} is the species with its article
# ("un chat" / "cat") and {m} the species after "mon/ma". The held-out templates are those the
# previous model was measured on (docs/training.md), so the figures stay comparable.
STATE_TRAIN = {
    "fr": {
        "name": ["je m'appelle {}", "mon prénom est {}", "moi c'est {}", "on m'appelle {}",
                 "je me prénomme {}", "tout le monde m'appelle {}", "je suis {}",
                 "mon prénom, c'est {}", "mes amis m'appellent {}", "tu peux m'appeler {}",
                 "appelle-moi {}", "je me nomme {}", "je porte le prénom {}", "prénom : {}",
                 "je réponds au prénom de {}", "c'est {} qui te parle", "ici c'est {}",
                 "mes parents m'ont appelé {}", "mon prénom à moi, c'est {}", "je signe {}"],
        "age": ["j'ai {} ans", "mon âge est de {} ans", "je viens d'avoir {} ans",
                "je suis âgé de {} ans", "j'ai {} ans maintenant", "j'ai déjà {} ans",
                "je suis âgée de {} ans", "mon âge : {} ans", "j'ai tout juste {} ans",
                "moi, j'ai {} ans", "j'ai {} ans depuis peu", "mon âge, c'est {} ans",
                "{} ans, voilà mon âge", "j'ai actuellement {} ans", "j'ai {} printemps",
                "je suis né il y a {} ans", "j'ai {} ans aujourd'hui", "âge : {} ans",
                "j'ai passé le cap des {} ans", "j'ai {} ans tout rond"],
        "city": ["j'habite à {}", "je vis à {}", "ma ville, c'est {}", "je réside à {}",
                 "je suis installé à {}", "ma maison est à {}", "j'habite en ce moment à {}",
                 "je loge à {}", "ma ville est {}", "j'ai mon appartement à {}", "ville : {}",
                 "je vis du côté de {}", "je suis de {}", "chez moi, c'est {}",
                 "je suis installée à {}", "j'ai ma maison à {}"],
        "pet": ["j'ai {s} qui s'appelle {}", "{m} s'appelle {}", "j'ai {s} nommé {}",
                "chez moi il y a {s}, {}", "le nom de {m} est {}", "je vis avec {s} appelé {}",
                "j'ai adopté {s}, {}", "{m} a pour nom {}", "j'ai {s} : {}",
                "{m} répond au nom de {}", "à la maison j'ai {s} qui s'appelle {}",
                "j'ai {s}, il s'appelle {}", "{m}, je l'ai appelé {}", "{m} se prénomme {}"],
        "date": ["mon anniversaire est le {}", "je suis né le {}", "mon anniversaire tombe le {}",
                 "je fête mon anniversaire le {}", "ma date de naissance, c'est le {}",
                 "je souffle mes bougies le {}", "mon anniversaire, c'est le {}",
                 "je suis venu au monde le {}", "mon anniversaire a lieu le {}",
                 "anniversaire : le {}", "je fête mes années le {}", "je suis née un {}"],
        "number": ["mon nombre préféré est {}", "mon chiffre porte-bonheur est {}",
                   "mon nombre fétiche est {}", "le nombre que je préfère est {}",
                   "j'adore le nombre {}", "mon nombre favori est {}",
                   "mon nombre préféré, c'est {}", "le nombre que j'aime le plus est {}",
                   "mon nombre chouchou est {}", "nombre préféré : {}",
                   "mon nombre de prédilection est {}", "je préfère le nombre {}"],
    },
    "en": {
        "name": ["my name is {}", "I'm {}", "call me {}", "the name's {}", "I am called {}",
                 "everyone calls me {}", "my name's {}", "you can call me {}", "I go by {}",
                 "name: {}", "this is {}", "{} here", "I'm called {}", "my parents named me {}",
                 "my friends call me {}", "{} is my name", "I answer to {}", "it's {} speaking",
                 "I am {}", "they named me {}"],
        "age": ["I'm {} years old", "my age is {}", "I just turned {}", "I am {} years old",
                "I'm {} now", "I'm aged {}", "I'm {}", "age: {}", "I'm {} years young",
                "I've just turned {}", "I am {} now", "I'm {} years of age",
                "I'm currently {}", "I turned {} recently", "{} years old, that's me",
                "I'm {} today", "I'm already {}", "my age? {}", "I'm {} years old now"],
        "city": ["I live in {}", "I'm from {}", "my home town is {}", "I reside in {}",
                 "I'm based in {}", "home for me is {}", "I stay in {}", "my city is {}",
                 "I've got a flat in {}", "city: {}", "I'm living in {}", "I grew up in {}",
                 "I rent a place in {}", "my house is in {}", "I live over in {}"],
        "pet": ["I have a {s} called {}", "my {s} is named {}", "I've got a {s} named {}",
                "I own a {s} called {}", "my {s}'s name is {}", "I live with a {s} named {}",
                "I adopted a {s}, {}", "my {s} goes by {}", "I have a {s}: {}",
                "there's my {s}, {}", "my {s} answers to {}", "I've a {s} called {}",
                "at home I have a {s} named {}", "I named my {s} {}"],
        "date": ["my birthday is on {}", "I was born on {}", "my birthday falls on {}",
                 "I celebrate my birthday on {}", "my date of birth is {}",
                 "I blow out my candles on {}", "my birthday's on {}", "birthday: {}",
                 "I came into the world on {}", "I was born {}", "I have my birthday on {}",
                 "my birthday comes on {}"],
        "number": ["my favourite number is {}", "my lucky number is {}",
                   "the number I like best is {}", "my number is {}", "I love the number {}",
                   "my favorite number is {}", "my favourite number's {}",
                   "I really like the number {}", "favourite number: {}", "my fave number is {}",
                   "the number I love most is {}", "I'm a fan of the number {}"],
    },
}
# More training phrasings per fact (French above all): many forms of one idea, values at the end,
# in the middle and at the start, so that a model learns where a value sits rather than a list of
# sentences. Written without looking for paraphrases of the held-out ones (checked, check_split).
STATE_MORE = {
    "fr": {
        "name": ["moi, je m'appelle {}", "je me présente : {}", "je me présente, je m'appelle {}",
                 "permets-moi de me présenter : {}", "ici {}", "c'est moi, {}",
                 "{}, c'est mon prénom", "{} est mon prénom", "mon prénom ? {}",
                 "je m'appelle bien {}", "tu parles à {}", "c'est {} à l'appareil",
                 "mes proches m'appellent {}", "vous pouvez m'appeler {}", "appelez-moi {}",
                 "mon prénom s'écrit {}", "je me fais appeler {}", "{}, pour te servir",
                 "au travail on m'appelle {}", "on m'appelle {} à la maison",
                 "à la naissance, on m'a appelé {}", "{}, c'est comme ça que je m'appelle",
                 "mon prénom, tu le sais pas encore : {}", "le prénom que je porte est {}",
                 "je suis {}, ravi de te parler", "je m'appelle {}, enchanté",
                 "{} pour les intimes", "mon prénom est bien {}", "je me nomme {} depuis toujours",
                 "c'est {}, ton utilisateur", "je suis ton utilisateur, {}",
                 "la personne qui t'écrit s'appelle {}"],
        "age": ["mon âge est {} ans", "{} ans, c'est mon âge", "je viens de fêter mes {} ans",
                "j'ai {} ans pile", "je fête mes {} ans", "je compte {} ans", "j'ai {} ans, pas plus",
                "j'ai {} ans exactement", "côté âge, j'ai {} ans", "mon âge ? {} ans",
                "j'ai {} balais", "je suis une personne de {} ans", "j'ai atteint {} ans",
                "j'ai fêté mes {} ans récemment", "j'ai {} ans révolus", "du haut de mes {} ans",
                "question âge, j'en ai {}", "je suis quelqu'un de {} ans", "j'ai {} années",
                "mon âge actuel est de {} ans", "j'ai tout pile {} ans", "j'ai {} ans et demi",
                "j'ai {} ans, eh oui", "{} ans au compteur", "à {} ans, je découvre les assistants"],
        "city": ["j'habite {}", "je vis en ce moment à {}", "ma ville à moi, c'est {}",
                 "je me suis installé à {}", "j'habite du côté de {}", "mon adresse est à {}",
                 "je travaille et j'habite à {}", "je vis à {} depuis longtemps"],
        "pet": ["mon compagnon, c'est {s} qui s'appelle {}", "{m} porte le nom de {}",
                "j'ai {s} qu'on appelle {}", "{m} ? il s'appelle {}", "j'ai recueilli {s}, {}"],
        "date": ["je suis né un {}", "mon anniversaire ? le {}", "ma fête d'anniversaire est le {}",
                 "je fête mon anniversaire chaque {}"],
        "number": ["mon nombre à moi, c'est {}", "j'aime bien le nombre {}",
                   "mon nombre porte-bonheur est {}", "je choisis toujours le nombre {}"],
    },
    "en": {
        "name": ["I go by the name {}", "let me introduce myself: {}", "hi, {} here",
                 "{} is what people call me", "my name? {}", "I'm {}, nice to meet you",
                 "you're talking to {}", "{} speaking", "{}, that's me", "the name is {}",
                 "I'm called {} at home", "at work they call me {}", "my name is spelled {}",
                 "please call me {}", "{} is the name", "I was named {}", "my mum calls me {}",
                 "they call me {} at work", "I'm the user, {}", "it's me, {}",
                 "my name's {}, by the way", "I introduce myself as {}"],
        "age": ["I'm {} years old exactly", "I'm a {}-year-old",
                "I recently turned {}", "I've reached {}", "I'm {} and counting",
                "I just had my {}th birthday", "my current age is {}", "I'm {} years old, yes",
                "age-wise, I'm {}", "I am aged {}", "I celebrated turning {} recently",
                "{} is my age", "I'm exactly {}", "I've been alive for {} years"],
        "city": ["home is {}", "I've lived in {} for years", "my address is in {}",
                 "I work and live in {}", "I'm currently living in {}"],
        "pet": ["my companion is a {s} called {}", "I keep a {s} named {}",
                "we have a {s} called {}", "I rescued a {s}, {}"],
        "date": ["my birthday? {}", "I celebrate on {} every year", "my birthday is always on {}"],
        "number": ["my number of choice is {}", "I always pick the number {}",
                   "the number I like is {}"],
    },
}
for _lang, _facts in STATE_MORE.items():
    for _fact, _templates in _facts.items():
        STATE_TRAIN[_lang][_fact] += _templates
# A family of name statements, "<who> call(s) me {}", composed (Generator name_callers): stage 3
# still took a name said in words outside its lists for another fact (docs/training.md).
NAME_CALLERS = {"fr": (["mes collègues", "mes copains", "mes voisins", "mes camarades",
                        "mes cousins", "mes élèves"],
                       ["m'appellent {}", "me surnomment {}", "me connaissent sous le nom de {}"]),
                "en": (["my colleagues", "my mates", "my neighbours", "my classmates",
                        "my cousins", "my teammates"],
                       ["call me {}", "know me as {}", "nicknamed me {}"])}
# A family of name statements, "my <name noun> is {}", composed (Generator name_nouns): after
# stage 4, a name said with a noun the lists lack was still heard as another fact.
NAME_NOUNS = {"fr": (["surnom", "pseudo", "prénom usuel", "vrai prénom", "prénom officiel",
                      "diminutif", "prénom complet"],
                     ["mon {} est {{}}", "mon {}, c'est {{}}", "mon {} : {{}}"]),
              "en": (["nickname", "given name", "real name", "full name", "usual name",
                      "forename", "pen name"],
                     ["my {} is {{}}", "my {}'s {{}}", "my {}: {{}}"])}
# Ages told beside a birthday word (--birthday-ages): the number, not the word, tells an age from
# a birthday (a birthday is a day and a month).
BIRTHDAY_AGES = {"fr": ["mon anniversaire est passé, j'ai maintenant {} ans",
                        "depuis mon dernier anniversaire, j'ai {} ans",
                        "j'ai fêté mon anniversaire, j'ai {} ans désormais",
                        "anniversaire fêté : {} ans", "le jour de mon anniversaire j'ai eu {} ans"],
                 "en": ["I had my birthday, so I'm {} now", "since my last birthday I've been {}",
                        "I celebrated my birthday and I'm {} now",
                        "birthday done, I'm {} years old", "I turned {} on my birthday"]}
STATE_HELDOUT = {
    "fr": {"name": ["mon nom est {}", "mon petit nom est {}"],
           "age": ["j'ai eu {} ans cette année", "je vais sur mes {} ans"],
           "city": ["je demeure à {}", "j'ai emménagé à {}"],
           "pet": ["{m} se nomme {}", "{m}, c'est {}"],
           "date": ["ma date de naissance est le {}", "on me souhaite mon anniversaire le {}"],
           "number": ["mon numéro préféré est {}", "le nombre qui me porte chance est {}"]},
    "en": {"name": ["people call me {}", "my first name is {}"],
           "age": ["I turned {} this year", "I'll stay {} until my birthday"],
           "city": ["I moved to {}", "I've settled in {}"],
           "pet": ["there's a {s} at home, {}", "our {s} is called {}"],
           "date": ["my birthday is {}", "I was born on the day of {}"],
           "number": ["my special number is {}", "the number that brings me luck is {}"]},
}
# Words put before a statement or a question, and what joins two statements.
MORE_OPENERS_FR = ["Oui, ", "Bien, ", "Alors voilà, ", "Pour que tu saches, ", "Je commence : ",
                   "Avant tout, ", "Juste pour info, ", "Ok, ", "Bon alors, ", "Tiens, ",
                   "Ah, et ", "Pour commencer, ", "Je te le dis : ", "Note bien : ", "En fait, ",
                   "Hum, ", "Ben, ", "Dis donc, "]
MORE_OPENERS_EN = ["Yes, ", "Okay so, ", "First of all, ", "Just FYI, ", "Note this: ",
                   "Actually, ", "Hmm, ", "Well then, ", "To begin with, ", "Alright, ",
                   "Oh, ", "So yeah, ", "Let me tell you: ", "Hey, so ", "Ok, "]
# Words after a statement (training only): a value is not always the last word.
TAILS = {"fr": [", voilà", ", pour info", ", c'est tout", ", si tu veux savoir", ", au cas où",
                ", retiens-le", " d'ailleurs", ", tu vois", ", bon", ", hein", ", c'est noté ?",
                " pour le moment", ", je crois"],
         "en": [", just so you know", ", that's all", ", remember that", ", okay", ", you see",
                " by the way", ", if you want to know", " for now", ", in case you wondered",
                ", alright", ", I think"]}
OPENERS_TRAIN = {"fr": [""] * 8 + ["Au fait, ", "Alors, ", "Bon, ", "Pour info, ", "Tu sais, ",
                                   "Sache que ", "Je te dis : ", "Petite info : ", "Euh, ",
                                   "Ah oui, ", "D'ailleurs, ", "Voilà : ", "Je précise : ",
                                   "Bref, ", "Donc, ", "Écoute, "] + MORE_OPENERS_FR,
                 "en": [""] * 8 + ["By the way, ", "So, ", "Well, ", "FYI, ", "You know, ",
                                   "Just so you know, ", "Oh, and ", "Also, ", "Quick note: ",
                                   "Okay, ", "Um, ", "Right, ", "For the record, ", "Anyway, ",
                                   "Listen, ", "Also "] + MORE_OPENERS_EN}
OPENERS_HELDOUT = {"fr": ["", "Figure-toi que ", "Au passage, ", "Entre nous, "],
                   "en": ["", "Incidentally, ", "Funny thing, ", "Between us, "]}
JOINERS = {"fr": [" et ", " et ", ", ", " et puis ", ". ", " ; "],
           "en": [" and ", " and ", ", ", " and also ", ". ", "; "]}
# --run-on: a statement's clauses run on as people type them: a clause may close itself (".",
# "!", "..."), and the next start with a capital after any joiner, or after an opener of its own
RUN_ON_JOINERS = {"fr": JOINERS["fr"] + [" puis ", " et aussi ", ", et ", ", sinon ", " - ",
                                         " et sinon ", ", bref ", " ah et ", " enfin "],
                  "en": JOINERS["en"] + [" then ", " plus ", ", and ", ", also ", " - ",
                                         " oh and ", " anyway ", ", so ", " and then "]}
CLAUSE_ENDS = ["", "", ".", ".", "!", "...", ","]
ENDS = [".", ".", ".", "!", "", " !", "..."]
# What the user asks for, as a noun phrase ("Rappelle-moi {mon prénom et mon âge}.").
NOUN = {
    "fr": {"name": "mon prénom", "age": "mon âge", "city": "ma ville",
           "pet": "le nom de mon animal", "date": "la date de mon anniversaire",
           "number": "mon nombre préféré"},
    "en": {"name": "my name", "age": "my age", "city": "where I live", "pet": "my pet's name",
           "date": "my birthday", "number": "my favourite number"},
}
# The same, from the assistant's side ("Tu ne m'as pas encore dit {ta ville}.").
NOUN_YOUR = {
    "fr": {"name": "ton prénom", "age": "ton âge", "city": "ta ville",
           "pet": "le nom de ton animal", "date": "la date de ton anniversaire",
           "number": "ton nombre préféré"},
    "en": {"name": "your name", "age": "your age", "city": "where you live",
           "pet": "your pet's name", "date": "your birthday", "number": "your favourite number"},
}
ASK_TRAIN = {
    "fr": ["Rappelle-moi {}.", "Tu te rappelles {} ?", "Dis-moi {}.", "Tu connais {} ?",
           "Qu'est-ce que tu sais sur {} ?", "Redis-moi {}, s'il te plaît.",
           "Tu te souviens de {} ?", "Tu as retenu {} ?", "Petit test : {} ?", "Donne-moi {}.",
           "Tu peux me rappeler {} ?", "Tu n'as pas oublié {} ?",
           "Voyons si tu te souviens : {} ?", "Quiz : {} ?", "Répète-moi {}.",
           "Tu sais encore {} ?", "Je t'ai dit {}, tu te rappelles ?", "C'est quoi, {} ?",
           "Tu peux me dire {} ?", "Et {}, tu t'en souviens ?", "Rappelle-toi {}.",
           "Dis voir, {} ?", "Tu as noté {} ?", "Que sais-tu de {} ?", "Redonne-moi {}.",
           "Je voudrais entendre {}.", "Alors, {} ?", "Tu te souviens bien de {} ?",
           "Vérifions : {} ?", "Tu retrouves {} ?", "Rappelle-moi {}, stp.", "Dis-moi vite {}."],
    "en": ["Remind me of {}.", "Do you remember {}?", "Tell me {}.",
           "What do you know about {}?", "Can you tell me {}?", "Tell me {} again, please.",
           "Do you recall {}?", "Quick test: {}?", "Give me {}.", "What was {} again?",
           "Can you remind me of {}?", "Did you keep {} in mind?", "Let's see: {}?",
           "Quiz time: {}?", "Say {}, please.", "Could you tell me {}?",
           "I told you {}, remember?", "Have you got {}?", "What about {}?",
           "Tell me what you know about {}.", "Recall {}, please.", "Any idea about {}?",
           "So, {}?", "Check: {}?", "Can you give me {}?", "Do you know {}?",
           "I'd like to hear {}.", "Tell me {} quickly.", "Did you note {}?",
           "What did I say about {}?", "Can you recall {}?", "Remind me {}, please."],
}
ASK_HELDOUT = {"fr": ["Peux-tu me redire {} ?", "Est-ce que tu te rappelles {} ?"],
               "en": ["Can you repeat {}?", "Do you still remember {}?"]}
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
# The acknowledgement of told facts: a greeting for a name, a noted-line for the others.
NOTED = {"fr": ["C'est noté : {}.", "D'accord : {}.", "Très bien, {}."],
         "en": ["Noted: {}.", "Okay: {}.", "Got it, {}."]}
GREET_BACK = {"fr": "Enchanté, {} !", "en": "Nice to meet you, {}!"}
# Sometimes (NO_ACK_RATE) a statement is answered without its values: a later answer must then
# copy the fact from the user's own words.
NO_ACK = {"fr": ["Merci, c'est noté.", "D'accord, je retiens.", "Bien reçu !"],
          "en": ["Thanks, noted.", "Okay, I'll remember that.", "Got it!"]}
NO_ACK_RATE = 0.15
# Distractors: facts about someone else ("Ma sœur s'appelle Léa et elle a 12 ans."), acknowledged
# but never the user's: (user's words, assistant's words, pronoun).
OTHERS = {"fr": [("ma sœur", "ta sœur", "elle"), ("mon frère", "ton frère", "il"),
                 ("mon voisin", "ton voisin", "il"), ("ma collègue", "ta collègue", "elle"),
                 ("mon fils", "ton fils", "il"), ("ma fille", "ta fille", "elle"),
                 ("mon meilleur ami", "ton meilleur ami", "il"), ("ma mère", "ta mère", "elle")],
          "en": [("my sister", "your sister", "she"), ("my brother", "your brother", "he"),
                 ("my neighbour", "your neighbour", "he"), ("my colleague", "your colleague",
                                                           "she"),
                 ("my son", "your son", "he"), ("my daughter", "your daughter", "she"),
                 ("my best friend", "your best friend", "he"), ("my mother", "your mother",
                                                                "she")]}
OTHER_FORMS = {"fr": ["{r} s'appelle {n} et {p} a {a} ans", "{r}, {n}, a {a} ans",
                      "{r} a {a} ans et s'appelle {n}", "le prénom de {r} est {n}, {p} a {a} ans"],
               "en": ["{r} is called {n} and {p} is {a}", "{r}, {n}, is {a} years old",
                      "{r} is {a} and {p}'s called {n}", "{r}'s name is {n}; {p} is {a}"]}
OTHER_ACK = {"fr": "C'est noté pour {r} : {n}, {a} ans.", "en": "Noted about {r}: {n}, {a}."}
DISTRACTOR_RATE = 0.25  # share of the in-between chat turns that are someone else's facts
SYSTEM = {"fr": ["Tu es un assistant serviable.", "Tu es Kazeia, un petit assistant.",
                 "Réponds brièvement."],
          "en": ["You are a helpful assistant.", "You are Kazeia, a small assistant.",
                 "Answer briefly."]}
FACTS = ["name", "age", "city", "pet", "date", "number"]
ACCENTS = str.maketrans("éèêëàâîïôûùç", "eeeeaaiiouuc")


def capital(template: str) -> str:
    return template[0].upper() + template[1:]


def decap(template: str) -> str:
    """Lower-cases the first letter, unless it is a value ({}) or English "I"."""
    first = template.split(" ")[0]
    if template.startswith("{") or first == "I" or first.startswith("I'"):
        return template
    return template[0].lower() + template[1:]


def split(items: list, heldout: bool) -> list:
    return [x for i, x in enumerate(items) if (i % HELDOUT_EVERY == HELDOUT_EVERY - 1) == heldout]


class Phrasings:
    """The templates of one side of the split, and the variants drawn on top of them."""

    def __init__(self, heldout: bool, name_callers: bool = False, name_nouns: bool = False,
                 birthday_ages: bool = False):
        h = heldout
        self.state = STATE_HELDOUT if h else {
            lang: {**d, "name": d["name"] + (callers(lang) if name_callers else [])
                   + (nouns(lang) if name_nouns else []),
                   "age": d["age"] + (BIRTHDAY_AGES[lang] if birthday_ages else [])}
            for lang, d in STATE_TRAIN.items()}
        self.ask = ASK_HELDOUT if h else ASK_TRAIN
        self.openers = OPENERS_HELDOUT if h else OPENERS_TRAIN
        self.ask_one = {lang: {f: split(v, h) for f, v in d.items()}
                        for lang, d in ASK_ONE.items()}
        self.greet = {lang: split(v, h) for lang, v in GREET.items()}
        self.repeat = {lang: split(v, h) for lang, v in REPEAT.items()}
        self.tails = {lang: [] if h else v for lang, v in TAILS.items()}
        self.noisy = not heldout  # held-out text is written cleanly: no typos, no case games

    def vary(self, rng: random.Random, template: str, lang: str) -> str:
        """Case, accent and typing-error variants of a template's own words ({} untouched)."""
        if not self.noisy:
            return template
        u = rng.random()
        if lang == "fr" and u < 0.1:
            template = template.translate(ACCENTS)
        elif u < 0.25:
            words = template.split(" ")
            i = rng.randrange(len(words))
            w = words[i]
            if len(w) > 3 and w.isalpha():
                j = rng.randrange(1, len(w) - 1)
                words[i] = rng.choice([w[:j] + w[j + 1:], w[:j] + w[j] + w[j:],
                                       w[:j - 1] + w[j] + w[j - 1] + w[j + 1:]])
            template = " ".join(words)
        return template


def callers(lang: str) -> list[str]:
    who, verbs = NAME_CALLERS[lang]
    return [f"{w} {v}" for w in who for v in verbs]


def nouns(lang: str) -> list[str]:
    names, frames = NAME_NOUNS[lang]
    return [f.format(n) for f in frames for n in names]


def plain(text: str) -> str:
    return text.lower().translate(ACCENTS)


def check_split():
    """No training template contains a held-out one, whatever the case and accents (training
    text gets case and accent variants): held-out phrasings are never trained."""
    pairs = [(STATE_TRAIN[lang][f], STATE_HELDOUT[lang][f]) for lang in STATE_TRAIN
             for f in FACTS] + [(ASK_TRAIN[lang], ASK_HELDOUT[lang]) for lang in ASK_TRAIN]
    pairs += [(callers(lang) + nouns(lang), STATE_HELDOUT[lang]["name"]) for lang in NAME_CALLERS]
    pairs += [(BIRTHDAY_AGES[lang], STATE_HELDOUT[lang]["age"]) for lang in BIRTHDAY_AGES]
    pairs += [([u for u, _ in SMALL_TALK_COMPOSED[lang]], [u for u, _ in split(v, True)])
              for lang, v in SMALL_TALK.items()]
    pairs += [(OPENERS_TRAIN[lang], OPENERS_HELDOUT[lang][1:]) for lang in OPENERS_TRAIN]
    for lang in ASK_ONE:
        pairs += [(split(v, False), split(v, True)) for v in ASK_ONE[lang].values()]
    for train, held in pairs:
        for t in train:
            for h in held:
                assert plain(h) not in plain(t), f"held-out phrasing {h!r} in {t!r}"


def questions(frames: list[str], lang: str) -> list[str]:
    """Question frames filled with every noun phrase an evaluation asks for."""
    pairs = [Generator.join(lang, [NOUN[lang]["name"], NOUN[lang]["age"]], capital=False)]
    return [f.format(n) for f in frames for n in pairs + list(NOUN[lang].values())]


def phrasings(lang: str) -> list[str]:
    """Every text the generator writes for `lang` on either side of the split: statement
    templates (with the optional name and age families), filled questions, direct questions,
    openers, greetings and small talk."""
    t = [s for f in FACTS for s in STATE_TRAIN[lang][f] + STATE_HELDOUT[lang][f]]
    t += callers(lang) + nouns(lang) + BIRTHDAY_AGES[lang]
    t += questions(ASK_TRAIN[lang] + ASK_HELDOUT[lang], lang)
    t += [q for qs in ASK_ONE[lang].values() for q in qs]
    t += OPENERS_TRAIN[lang] + OPENERS_HELDOUT[lang] + GREET[lang]
    return t + [u for u, _ in SMALL_TALK[lang] + SMALL_TALK_COMPOSED[lang]]


class Generator:
    """Draws dialogues from the training lists (heldout=False) or the held-out ones."""

    def __init__(self, seed: int, heldout: bool, repeat_rate: float = 0.0,
                 never_rate: float = 0.05, hold_rate: float = 0.0, composed_talk: float = 0.0,
                 name_callers: bool = False, name_nouns: bool = False, unknown_words: float = 0.0,
                 birthday_ages: bool = False, long_names: float = 0.0, run_on: float = 0.0):
        check_split()
        self.rng = random.Random(seed)
        self.repeat_rate = repeat_rate  # share of the in-between turns that are copy exercises
        self.never_rate = never_rate  # share of the questions about a fact not given yet
        # share of the dialogues that never tell one or two of the facts, so that a question
        # about a fact not given can come late in a long dialogue (by turn 8 most tell them all)
        self.hold_rate = hold_rate
        # share of the small-talk turns drawn from the composed small talk (training only)
        self.composed_talk = 0.0 if heldout else composed_talk
        # share of the statements, questions and composed small talk with made-up words
        # (chat_unknown; training only)
        self.unknown_words = 0.0 if heldout else unknown_words
        if self.unknown_words:
            import chat_unknown  # it imports this module: loaded here, when it is used
            self.unknown = chat_unknown
        # share of the names (the user's, others', in copy exercises) made long (chat_names
        # .long_name; training only)
        self.long_names = 0.0 if heldout else long_names
        # share of the statements of two facts or more whose clauses run on (RUN_ON_JOINERS;
        # training only)
        self.run_on = 0.0 if heldout else run_on
        self.heldout = heldout
        h = heldout
        seen = set(split(FIRST_NAMES, False)) | set(split(PET_NAMES, False))
        # held-out names: never in a training list, whichever list
        self.names = [n for n in split(FIRST_NAMES, h) if not h or n not in seen]
        self.pet_names = [n for n in split(PET_NAMES, h) if not h or n not in seen]
        self.cities = {"fr": split(CITIES_FR, h), "en": split(CITIES_EN, h)}
        self.phr = Phrasings(heldout, name_callers, name_nouns, birthday_ages)
        self.small_talk = {lang: split(v, h) for lang, v in SMALL_TALK.items()}
        self.forbidden = set(split(FIRST_NAMES, True)) | set(split(PET_NAMES, True))

    def name(self, pool: list[str]) -> str:
        """Held-out: a held-out real name. Training: with --long-names, a long name at that
        rate; otherwise a real name (45 %), a pseudo-name (40 %) or an arbitrary string (15 %:
        letter salad, mixed case, compounds), so that no name is worth memorising and any string
        can be one."""
        r = self.rng
        if self.long_names and r.random() < self.long_names:  # no draw at 0: same stream
            make = lambda: long_name(r, pool)  # noqa: E731
        else:
            u = r.random()
            if self.heldout or u < 0.45:
                return r.choice(pool)
            make = (lambda: pseudo_name(r)) if u < 0.85 else (lambda: arbitrary_name(r))
        while True:  # made-up names never collide with held-out names
            n = make()
            if n not in self.forbidden:
                return n

    def number(self) -> str:
        """A favourite number or a number to copy: 1 to 8 digits on training text."""
        r = self.rng
        if self.heldout:
            return str(r.choice([r.randint(2, 99), r.randint(100, 9999)]))
        return str(r.randint(0, 10 ** r.randint(1, 8) - 1))

    def age(self) -> str:
        """16 to 89 (the held-out range); on training text 1 to 120 now and then."""
        r = self.rng
        if self.heldout or r.random() < 0.85:
            return str(r.randint(16, 89))
        return str(r.randint(1, 120))

    def facts(self, lang: str) -> dict:
        r = self.rng
        sp = r.randrange(len(SPECIES_FR))
        months = (MONTHS_FR if lang == "fr" else MONTHS_EN).split()
        day, month = r.randint(1, 28), r.choice(months)
        return {
            "name": self.name(self.names),
            "age": self.age(),
            "city": r.choice(self.cities[lang]),
            "pet": (sp, self.name(self.pet_names)),
            "date": f"{day} {month}" if lang == "fr" else f"{month} {day}",
            "number": self.number(),
        }

    # --- sentences ---------------------------------------------------------------------------

    def statement(self, lang: str, fact: str) -> str:
        """A statement template for `fact`: its value is left as {} (a pet's species is filled
        in), so that case changes and openers never touch a value."""
        t = self.phr.vary(self.rng, self.rng.choice(self.phr.state[lang][fact]), lang)
        if self.unknown_words and self.rng.random() < self.unknown_words:
            t = self.unknown.garble_statement(self.rng, t, fact)
        return t

    def with_unknown(self, text: str) -> str:
        """`text` with made-up words inserted, at the rate --unknown-words (no draw at 0)."""
        if self.unknown_words and self.rng.random() < self.unknown_words:
            return self.unknown.insert_unknown(self.rng, text)
        return text

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
    def join(lang: str, parts: list[str], capital: bool = True) -> str:
        conj = " et " if lang == "fr" else " and "
        s = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + conj + parts[-1]
        return s[0].upper() + s[1:] if capital else s

    def answer(self, lang: str, asked: list[str], known: dict) -> str:
        told = [f for f in asked if f in known]
        missing = [f for f in asked if f not in known]
        out = []
        if told:
            out.append(self.join(lang, [self.answer_clause(lang, f, known[f]) for f in told]) + ".")
        if missing:
            nouns = self.join(lang, [NOUN_YOUR[lang][f] for f in missing], capital=False)
            out.append(f"Tu ne m'as pas encore dit {nouns}." if lang == "fr"
                       else f"You haven't told me {nouns} yet.")
        return " ".join(out)

    def opener(self, lang: str, template: str) -> str:
        o = self.rng.choice(self.phr.openers[lang])
        return o + decap(template) if o else template

    def end(self, template: str) -> str:
        r = self.rng
        if self.phr.noisy and r.random() < 0.15:
            template = decap(template)
        return template + (r.choice(ENDS) if self.phr.noisy else r.choice([".", "!"]))

    def question(self, lang: str, asked: list[str]) -> str:
        r = self.rng
        if len(asked) == 1 and r.random() < 0.4:
            return self.with_unknown(r.choice(self.phr.ask_one[lang][asked[0]]))
        nouns = self.join(lang, [NOUN[lang][f] for f in asked], capital=False)
        return self.with_unknown(self.phr.vary(r, r.choice(self.phr.ask[lang]), lang)).format(nouns)

    def tell(self, lang: str, told: list[str], facts: dict, first: bool) -> tuple[str, str]:
        r = self.rng
        parts = [self.statement(lang, f) for f in told]
        if len(parts) > 1 and self.run_on and r.random() < self.run_on:  # no draw at 0
            t = self.run_on_clauses(lang, parts)
        else:
            t = parts[0]
            for p in parts[1:]:
                j = r.choice(JOINERS[lang])
                t += j + (capital(p) if j.startswith(".") else p)
        if self.phr.tails[lang] and r.random() < 0.25:
            t += r.choice(self.phr.tails[lang])
        t = self.end(self.opener(lang, capital(t)))
        if first and r.random() < 0.7:
            t = r.choice(self.phr.greet[lang]) + ", " + decap(t)
        sp, pet = facts["pet"]
        t = t.replace("{s}", SPECIES_FR[sp][0] if lang == "fr" else SPECIES_EN[sp])
        t = t.replace("{m}", SPECIES_FR[sp][2] if lang == "fr" else SPECIES_EN[sp])
        text = t.format(*[pet if f == "pet" else facts[f] for f in told])
        if r.random() < NO_ACK_RATE:
            return text, r.choice(NO_ACK[lang])
        reply = []
        if "name" in told:
            reply.append(GREET_BACK[lang].format(facts["name"]))
        others = [self.answer_clause(lang, f, facts[f]) for f in told if f != "name"]
        if others:
            noted = r.choice(NOTED[lang]).format(self.join(lang, others, capital=False))
            reply.append(noted)
        return text, " ".join(reply)

    def run_on_clauses(self, lang: str, parts: list[str]) -> str:
        """Statement clauses joined as people run them on: each may close itself or trail off,
        and the next may start with a capital or with an opener of its own, so that neither a
        capital letter nor the word after a joiner marks the name ("... Bob. et puis J'ai 46
        ans")."""
        r = self.rng
        t = parts[0]
        for p in parts[1:]:
            if self.phr.tails[lang] and r.random() < 0.2:
                t += r.choice(self.phr.tails[lang])
            t += r.choice(CLAUSE_ENDS)
            if r.random() < 0.3:
                p = r.choice([o for o in self.phr.openers[lang] if o]) + decap(p)
            t += r.choice(RUN_ON_JOINERS[lang]) + (capital(p) if r.random() < 0.6 else p)
        return t

    def small_talk_turn(self, lang: str) -> tuple[str, str]:
        """A message without a fact, answered without one: a fixed pair, or (composed_talk) a
        composed message with typing variants (chat_smalltalk)."""
        r = self.rng
        if self.composed_talk and r.random() < self.composed_talk:  # no draw at 0: same stream
            user, replies = r.choice(SMALL_TALK_COMPOSED[lang])
            return self.with_unknown(self.phr.vary(r, user, lang)), r.choice(replies)
        return r.choice(self.small_talk[lang])

    def distractor(self, lang: str) -> tuple[str, str]:
        """Someone else's name and age, acknowledged as theirs: never an answer about the user."""
        r = self.rng
        rel, rel2, pron = r.choice(OTHERS[lang])
        n, a = self.name(self.names), str(r.randint(2, 95))
        text = r.choice(OTHER_FORMS[lang]).format(r=rel, n=n, p=pron, a=a)
        text = self.end(self.opener(lang, capital(text)))
        return text, OTHER_ACK[lang].format(r=rel2, n=n, a=a)

    def copy_exercise(self, lang: str) -> tuple[str, str]:
        """A list of names, numbers and cities to repeat: every reply token is a copy, which
        teaches the model to copy from its context early in training."""
        r = self.rng
        items = []
        for _ in range(r.randint(2, 6)):
            u = r.random()
            items.append(self.name(self.names) if u < 0.4 else self.name(self.pet_names)
                         if u < 0.55 else self.number() if u < 0.8
                         else r.choice(self.cities[lang]))
        text = ", ".join(items)
        return r.choice(self.phr.repeat[lang]).format(text), text + "."

    # --- dialogues ---------------------------------------------------------------------------

    def dialogue(self, n_turns: int, lang: str | None = None, plan: list | None = None) -> dict:
        """A dialogue of n_turns user messages, each answered.
        plan (optional): per turn ("tell", [facts]), ("chat",), ("repeat",), ("other",) (someone
        else's facts) or ("ask", [facts])."""
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
                user, reply = self.small_talk_turn(lang)
            elif step[0] == "repeat":
                user, reply = self.copy_exercise(lang)
            elif step[0] == "other":
                user, reply = self.distractor(lang)
            else:
                user, reply = self.question(lang, step[1]), self.answer(lang, step[1], known)
            messages += [{"role": "user", "content": user},
                         {"role": "assistant", "content": reply}]
        return {"lang": lang, "facts": facts, "plan": plan, "messages": messages}

    def random_plan(self, n_turns: int) -> list:
        r = self.rng
        todo = FACTS[:]
        r.shuffle(todo)
        if r.random() < 0.4:  # the acceptance scenario's opening: name and age together
            todo = ["name", "age"] + [f for f in todo if f not in ("name", "age")]
        if self.hold_rate and r.random() < self.hold_rate:  # no draw at 0: same stream as before
            todo = todo[:len(todo) - r.choice([1, 2])]
        plan, known = [], []
        for i in range(n_turns):
            # Most dialogues end with a question; the others with a statement, small talk or a
            # copy exercise, so that every kind of reply is also learnt in the form it has at
            # inference (the last turn, after the template's empty think block).
            last = i == n_turns - 1 and r.random() < 0.6
            u = r.random()
            if not last and todo and (i == 0 or u < 0.45):
                k = 2 if i == 0 and todo[:2] == ["name", "age"] else \
                    min(len(todo), r.choice([1, 1, 2, 2, 3]))
                told, todo = todo[:k], todo[k:]
                plan.append(("tell", told))
                known += told
            elif not last and (u < 0.75 or not known):
                v = r.random()
                plan.append(("repeat",) if v < self.repeat_rate else ("other",)
                            if v < self.repeat_rate + DISTRACTOR_RATE else ("chat",))
            else:
                untold = [f for f in FACTS if f not in known]
                if untold and (not known or r.random() < self.never_rate):
                    # a fact not given (now and then beside a given one): the answer says so
                    asked = [r.choice(untold)]
                    if known and r.random() < 0.3:
                        asked.insert(r.randint(0, 1), r.choice(known))
                else:
                    asked = r.sample(known, min(len(known), r.choice([1, 1, 2, 2, 3])))
                plan.append(("ask", asked))
        return plan


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=3)
    ap.add_argument("--heldout", action="store_true")
    args = ap.parse_args()
    g = Generator(args.seed, args.heldout, 0.5)
    for _ in range(args.show):
        d = g.dialogue(g.rng.randint(2, 8))
        for m in d["messages"]:
            print(f"{m['role']:>9}: {m['content']}")
        print()


if __name__ == "__main__":
    main()
