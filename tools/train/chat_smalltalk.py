"""Composed small talk for the chat model's training dialogues: what the user says between facts
(an activity, a feeling, a taste, the weather, a question to the assistant, a short reaction),
answered without any fact about the user.

Why: with 18 fixed small-talk pairs per language a model learns the pairs, and answers small
talk it has not seen as if it were a fact ("It's Monday." -> "Nice to meet you, Brisbane!"); the
wrong fact then sits in the history and is copied at the next question. Composed from parts,
the user's side has thousands of forms, and the rule to learn is that a message without a
fact is answered without one.

The held-out small talk (chat_data.SMALL_TALK, entries i % 4 == 3) is never produced:
chat_data.check_split compares every composed message with it, case- and accent-free. The
messages share common forms with it ("I'm ...ing", "J'aime ...") but none of its topics
(coffee, chocolate, cycling, exams, tiredness, music, Monday, thanks, "assistant", ...).

Every item is (user's message, possible replies); all items of a language are listed once, at
import (all_small_talk), so that the check is exhaustive and a draw is one choice.
"""
from __future__ import annotations

# (infinitive after "je vais", past participle after "j'ai") in French; (present participle
# after "I'm", simple past) in English.
ACTIVITIES_FR = [("ranger ma chambre", "rangé ma chambre"),
                 ("cuisiner des pâtes", "cuisiné des pâtes"),
                 ("jouer aux cartes", "joué aux cartes"),
                 ("courir au bord du lac", "couru au bord du lac"),
                 ("voir mes grands-parents", "vu mes grands-parents"),
                 ("faire les courses", "fait les courses"),
                 ("nager à la piscine", "nagé à la piscine"), ("lire un roman", "lu un roman"),
                 ("écouter un podcast", "écouté un podcast"),
                 ("regarder une série", "regardé une série"),
                 ("appeler une amie", "appelé une amie"), ("prendre le train", "pris le train"),
                 ("visiter un musée", "visité un musée"),
                 ("planter des tomates", "planté des tomates"),
                 ("repeindre la cuisine", "repeint la cuisine"),
                 ("faire une randonnée", "fait une randonnée"),
                 ("jouer de la guitare", "joué de la guitare"),
                 ("préparer une soupe", "préparé une soupe"),
                 ("laver la voiture", "lavé la voiture"), ("écrire une lettre", "écrit une lettre"),
                 ("tricoter une écharpe", "tricoté une écharpe"),
                 ("réparer mon ordinateur", "réparé mon ordinateur"),
                 ("apprendre l'espagnol", "appris un peu d'espagnol"),
                 ("danser avec des amis", "dansé avec des amis"),
                 ("nettoyer le garage", "nettoyé le garage"), ("dessiner un peu", "dessiné un peu"),
                 ("jouer aux échecs", "joué aux échecs"), ("aller au marché", "été au marché")]
ACTIVITIES_EN = [("tidying my room", "tidied my room"), ("cooking pasta", "cooked pasta"),
                 ("playing cards", "played cards"), ("running by the lake", "ran by the lake"),
                 ("visiting my grandparents", "visited my grandparents"),
                 ("doing the shopping", "did the shopping"),
                 ("swimming at the pool", "swam at the pool"), ("reading a novel", "read a novel"),
                 ("listening to a podcast", "listened to a podcast"),
                 ("watching a series", "watched a series"), ("calling a friend", "called a friend"),
                 ("taking the train", "took the train"), ("visiting a museum", "visited a museum"),
                 ("planting tomatoes", "planted tomatoes"),
                 ("painting the kitchen", "painted the kitchen"),
                 ("going on a hike", "went on a hike"), ("playing the guitar", "played the guitar"),
                 ("making soup", "made soup"), ("washing the car", "washed the car"),
                 ("writing a letter", "wrote a letter"), ("knitting a scarf", "knitted a scarf"),
                 ("fixing my computer", "fixed my computer"),
                 ("learning Spanish", "learnt some Spanish"),
                 ("dancing with friends", "danced with friends"),
                 ("cleaning the garage", "cleaned the garage"),
                 ("drawing a little", "drew a little"), ("playing chess", "played chess"),
                 ("going to the market", "went to the market")]
SOON_FR = ["Je vais {}.", "Ce soir, je vais {}.", "Demain, je vais {}.",
           "Tout à l'heure, je vais {}.", "Ce week-end, je vais {}.", "J'ai envie de {}."]
PAST_FR = ["J'ai {}.", "Hier, j'ai {}.", "Ce matin, j'ai {}.", "Ce week-end, j'ai {}.",
           "Tout à l'heure, j'ai {}."]
SOON_EN = ["I'm {}.", "Tonight I'm {}.", "Tomorrow I'm {}.", "Later I'm {}.",
           "This weekend I'm {}.", "I feel like {}."]
PAST_EN = ["I {}.", "Yesterday I {}.", "This morning I {}.", "Last weekend I {}.", "Earlier I {}."]
REPLY_SOON = {"fr": ["Bonne idée !", "Amuse-toi bien !", "Ça a l'air sympa.", "Profite bien !",
                     "Bon courage !"],
              "en": ["Good idea!", "Have fun!", "Sounds nice.", "Enjoy it!",
                     "Good luck with that!"]}
REPLY_PAST = {"fr": ["Ça a dû être agréable.", "Bravo !", "Ça a l'air bien.", "Intéressant !",
                     "J'espère que c'était bien."],
              "en": ["That must have been nice.", "Well done!", "Sounds good.", "Interesting!",
                     "I hope it was fun."]}

FEELINGS = {"fr": (["content", "contente", "heureux", "heureuse", "de bonne humeur", "détendu",
                    "en pleine forme", "ravi"],
                   ["triste", "stressé", "stressée", "un peu malade", "énervé", "inquiète",
                    "découragé", "de mauvaise humeur"]),
            "en": (["happy", "glad", "in a good mood", "relaxed", "full of energy", "cheerful",
                    "pleased", "excited"],
                   ["sad", "stressed", "a little ill", "annoyed", "worried", "down",
                    "in a bad mood", "nervous"])}
FEEL_FORMS = {"fr": ["Je suis {}.", "Je me sens {} aujourd'hui.", "Aujourd'hui, je suis {}.",
                     "Je suis {} ce soir."],
              "en": ["I'm {}.", "I feel {} today.", "Today I'm {}.", "I'm {} tonight."]}
REPLY_FEEL = {"fr": (["Tant mieux !", "Ça fait plaisir à entendre.", "Super, profite !"],
                     ["Courage, ça va passer.", "Je suis là si tu veux en parler.",
                      "Prends soin de toi."]),
              "en": (["Great to hear!", "I'm glad.", "Nice, enjoy it!"],
                     ["Hang in there.", "I'm here if you want to talk.", "Take care of yourself."])}

THINGS_FR = ["les fraises", "le jazz", "la mer", "la montagne", "les films d'horreur",
             "le football", "les jeux vidéo", "la neige", "le thé vert", "les croissants",
             "la poésie", "le rugby", "les chats", "les orages", "le fromage", "les voyages en train", "la danse",
             "les romans policiers", "le jardinage", "les épinards"]
THINGS_EN = ["strawberries", "jazz", "the sea", "the mountains", "horror films", "football",
             "video games", "snow", "green tea", "croissants", "poetry", "rugby", "cats",
             "storms", "cheese", "train journeys", "dancing", "crime novels", "gardening",
             "spinach"]
TASTE_FORMS = {"fr": ["J'aime {}.", "J'adore {}.", "Je n'aime pas {}.", "Je déteste {}.",
                      "J'aime beaucoup {}."],
               "en": ["I like {}.", "I adore {}.", "I don't like {}.", "I hate {}.",
                      "I really enjoy {}."]}
REPLY_TASTE = {"fr": ["Chacun ses goûts !", "Je comprends.", "C'est intéressant.",
                      "Ah, je vois."],
               "en": ["Each to their own!", "I understand.", "That's interesting.", "Ah, I see."]}
ASK_TASTE = {"fr": ["Tu aimes {} ?", "Tu connais {} ?", "Qu'est-ce que tu penses de {} ?"],
             "en": ["Do you like {}?", "Do you know {}?", "What do you think of {}?"]}
REPLY_ASK_TASTE = {"fr": ["Je n'ai pas vraiment d'avis, mais j'aime en parler.",
                          "Je suis un programme, mais on m'en a dit du bien."],
                   "en": ["I don't really have an opinion, but I like talking about it.",
                          "I'm a program, but I've heard good things about it."]}

WEATHER = {"fr": ["Il neige.", "Il fait froid.", "Il fait chaud.", "Il y a du vent.",
                  "Il y a du brouillard.", "Le ciel est gris.", "Il y a un orage.",
                  "Il fait doux ce soir.", "Il gèle dehors."],
           "en": ["It's snowing.", "It's cold.", "It's hot.", "It's windy.", "It's foggy.",
                  "The sky is grey.", "There's a storm.", "It's mild tonight.",
                  "It's freezing outside."]}
REPLY_WEATHER = {"fr": ["Le temps change vite en ce moment.", "Merci pour la météo !",
                        "Il faut s'adapter à la météo."],
                 "en": ["The weather changes fast these days.", "Thanks for the weather report!",
                        "We have to take the weather as it comes."]}

# Questions about the assistant itself: its name, age or home are not the user's.
ABOUT_YOU = {"fr": [("Et toi, tu as quel âge ?", "Je suis un programme, je n'ai pas d'âge."),
                    ("Comment tu t'appelles, toi ?", "Je suis Kazeia, un petit assistant."),
                    ("Tu habites où, toi ?", "Je vis dans ton appareil."),
                    ("Tu dors la nuit ?", "Non, je suis toujours là."),
                    ("Tu as des amis ?", "Je discute avec toi, c'est déjà bien."),
                    ("Tu es réveillé ?", "Oui, toujours !")],
             "en": [("And you, how old are you?", "I'm a program, I have no age."),
                    ("What's your name?", "I'm Kazeia, a small assistant."),
                    ("Where do you live?", "I live in your device."),
                    ("Do you sleep at night?", "No, I'm always here."),
                    ("Do you have friends?", "I chat with you, that's already nice."),
                    ("Are you awake?", "Yes, always!")]}
REACTIONS = {"fr": ["Ah bon ?", "D'accord.", "Je vois.", "Haha.", "Oui.", "Peut-être.",
                    "C'est drôle.", "Intéressant.", "Super.", "Oh là là.", "Bof.", "Bien sûr."],
             "en": ["Really?", "Okay.", "I see.", "Haha.", "Yes.", "Maybe.", "That's funny.",
                    "Interesting.", "Great.", "Oh dear.", "Meh.", "Of course."]}
REPLY_REACTION = {"fr": ["Oui !", "Tout à fait.", "Je t'écoute.", "Dis-m'en plus si tu veux."],
                  "en": ["Yes!", "Absolutely.", "I'm listening.", "Tell me more if you like."]}


def _items(lang: str) -> list[tuple[str, list[str]]]:
    fr = lang == "fr"
    acts = ACTIVITIES_FR if fr else ACTIVITIES_EN
    items = [(f.format(soon), REPLY_SOON[lang]) for f in (SOON_FR if fr else SOON_EN)
             for soon, _ in acts]
    items += [(f.format(past), REPLY_PAST[lang]) for f in (PAST_FR if fr else PAST_EN)
              for _, past in acts]
    good, bad = FEELINGS[lang]
    good_r, bad_r = REPLY_FEEL[lang]
    items += [(f.format(a), good_r) for f in FEEL_FORMS[lang] for a in good]
    items += [(f.format(a), bad_r) for f in FEEL_FORMS[lang] for a in bad]
    things = THINGS_FR if fr else THINGS_EN
    items += [(f.format(t), REPLY_TASTE[lang]) for f in TASTE_FORMS[lang] for t in things]
    items += [(f.format(t), REPLY_ASK_TASTE[lang]) for f in ASK_TASTE[lang] for t in things]
    items += [(w, REPLY_WEATHER[lang]) for w in WEATHER[lang]]
    items += [(q, [a]) for q, a in ABOUT_YOU[lang]] * 4  # few forms, worth more weight
    items += [(x, REPLY_REACTION[lang]) for x in REACTIONS[lang]] * 2
    return items


SMALL_TALK_COMPOSED = {lang: _items(lang) for lang in ("fr", "en")}
