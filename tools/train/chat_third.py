#!/usr/bin/python3
"""A third held-out split ("third"), written on 2026-12-07 before stage 6's runs, for one blind
measurement of stage 6: the second split (chat_fresh) was measured on stages 4 and 5 and 30 of
its misses were read, and stage 6's data was designed knowing them, so that split no longer
measures stage 6 blind. Names, cities, pet names, statement and question templates, openers,
greetings and small talk are in no list of the generator and in neither earlier split
(check_blind, case- and accent-free). Written in the style of the earlier splits (two templates
per fact and language, phrased as a user might), without trying any of it on a model first.

eval_recall.py --split third plays its dialogues."""
from chat_fresh import BlindSplit

THIRD = BlindSplit(
    names=["Aurèle", "Casimir", "Ghislaine", "Ignace", "Josselin", "Ludivine", "Nolwenn",
           "Pétronille", "Rodrigue", "Séverin", "Baptistine", "Eudoxie", "Gonzague", "Hermance",
           "Léocadie", "Mathurin", "Anselm", "Bartholomew", "Cressida", "Dashiell", "Ephraim",
           "Griselda", "Lachlan", "Lorcan", "Gwendolyn", "Ottilie", "Peregrine", "Rosalind",
           "Saoirse", "Thaddeus", "Drusilla", "Horatio"],
    pet_names=["Grelot", "Chipie", "Boulette", "Mistigri", "Zébulon", "Titou", "Guimauve",
               "Pépito", "Pancake", "Waffle"],
    cities={"fr": ["Pontarlier", "Aurillac", "Guéret", "Pontivy", "Sarlat", "Briançon", "Mayenne",
                   "Fougères", "Morlaix", "Vierzon"],
            "en": ["Shrewsbury", "Hereford", "Lerwick", "Cirencester", "Harrogate", "Aberystwyth",
                   "Kendal", "Oban", "Wexford", "Bideford"]},
    state={
        "fr": {"name": ["mes proches me surnomment {}", "sur mes papiers, c'est marqué {}"],
               "age": ["je compte {} années", "j'ai soufflé {} bougies cette année"],
               "city": ["j'ai posé mes valises à {}", "mon adresse se trouve à {}"],
               "pet": ["{m} porte le doux nom de {}", "chez nous vit {s} du nom de {}"],
               "date": ["mon jour de naissance, c'est le {}", "je prends un an de plus le {}"],
               "number": ["le nombre qui me porte chance, c'est {}",
                          "j'ai un faible pour le nombre {}"]},
        "en": {"name": ["folks know me as {}", "my first name happens to be {}"],
               "age": ["I reached {} this spring", "I've been around for {} years"],
               "city": ["you'll find me in {}", "these days I'm settled in {}"],
               "pet": ["our {s} goes by the name {}", "I look after a {s} called {}"],
               "date": ["my birthday comes round on {}", "I celebrate another year on {}"],
               "number": ["my lucky number happens to be {}", "I'm partial to the number {}"]},
    },
    ask={"fr": ["Tu saurais me redonner {} ?", "Est-ce que {} te revient ?"],
         "en": ["Can you recall {} for me?", "Any idea what {} is?"]},
    ask_one={
        "fr": {"name": ["C'est quoi, mon prénom, déjà ?"], "age": ["J'ai quel âge, selon toi ?"],
               "city": ["J'habite où, tu te souviens ?"],
               "pet": ["Mon animal, il se nomme comment ?"],
               "date": ["Mon anniversaire, c'est quand ?"],
               "number": ["Quel est mon nombre porte-bonheur ?"]},
        "en": {"name": ["Who am I, by name?"], "age": ["How many years old am I?"],
               "city": ["Where's home for me?"], "pet": ["My pet, what's it called?"],
               "date": ["When do I celebrate my birthday?"],
               "number": ["What's the number I like best?"]}},
    openers={"fr": ["", "Petite précision, ", "Autre chose : ", "Et sinon, "],
             "en": ["", "One more thing: ", "On another note, ", "As it happens, "]},
    greetings={"fr": ["Allô", "Kikou"], "en": ["Good day", "Ahoy"]},
    small_talk={
        "fr": [("Il neige chez moi.", "Profite bien de la neige !"),
               ("J'ai raté mon bus.", "Le prochain ne tardera pas."),
               ("Je prépare une tarte.", "Bonne pâtisserie !"),
               ("Mon ordinateur est lent.", "C'est agaçant."),
               ("J'ai couru ce matin.", "Bravo pour ta course !"),
               ("Je lis un polar.", "Bonne lecture !"),
               ("La réunion a duré longtemps.", "Tu as bien mérité une pause."),
               ("Mon café est froid.", "Dommage, refais-en un.")],
        "en": [("It's snowing here.", "Enjoy the snow!"),
               ("I missed my bus.", "The next one will come soon."),
               ("I'm baking a pie.", "Happy baking!"),
               ("My computer is slow.", "That's annoying."),
               ("I went for a run this morning.", "Well done on your run!"),
               ("I'm reading a thriller.", "Enjoy the book!"),
               ("The meeting ran long.", "You've earned a break."),
               ("My coffee went cold.", "Too bad, make another one.")]},
)
