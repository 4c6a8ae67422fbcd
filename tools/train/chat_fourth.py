#!/usr/bin/python3
"""A fourth held-out split ("fourth"), written on 2026-12-07 after stage 6's runs, for one
confirmatory measurement: stage 6's rule chose on the first held-out split, which disagreed with
the third split measured afterwards, so the third split's figures informed the next choice and
no longer measure it blind. Names, cities, pet names, statement and question templates,
openers, greetings and small talk are in no list of the generator and in no earlier blind split
(check_blind, case- and accent-free). Written in the style of the earlier splits, without
trying any of it on a model first.

eval_recall.py --split fourth plays its dialogues."""
from chat_fresh import BlindSplit

FOURTH = BlindSplit(
    names=["Amandine", "Brieuc", "Corentin", "Edwige", "Gwenaëlle", "Hippolyte", "Jézabel",
           "Lisandre", "Maëlys", "Nathanaël", "Philibert", "Soizic", "Théodric", "Ysaline",
           "Aymeric", "Wladimir", "Aldous", "Bronwyn", "Cuthbert", "Dagny", "Oonagh", "Alasdair",
           "Gwyneth", "Humphrey", "Iphigenia", "Jolyon", "Kenelm", "Leopold", "Mungo",
           "Nkechi", "Radhika", "Solveig"],
    pet_names=["Frisbee", "Crapouille", "Chouquette", "Pruneau", "Brindille", "Spaghetti",
               "Choupinet", "Cornichon", "Truffe", "Gribiche"],
    cities={"fr": ["Carhaix", "Hazebrouck", "Sisteron", "Embrun", "Brioude", "Pithiviers",
                   "Romorantin", "Vesoul", "Montbrison", "Paimpol"],
            "en": ["Kirkcaldy", "Dunfermline", "Stornoway", "Wrexham", "Ashbourne", "Skibbereen",
                   "Thurso", "Llandudno", "Tewkesbury", "Knaresborough"]},
    state={
        "fr": {"name": ["sur l'acte de naissance, on lit {}", "mon père m'a donné le prénom {}"],
               "age": ["je totalise {} ans", "à mon dernier anniversaire j'ai eu {} ans"],
               "city": ["je vis maintenant dans la ville de {}", "mon domicile est situé à {}"],
               "pet": ["{m} répond quand on l'appelle {}", "notre famille a {s} surnommé {}"],
               "date": ["ma date d'anniversaire tombe le {}", "je célèbre ma naissance le {}"],
               "number": ["mon nombre porte-chance est le {}", "le nombre que j'affectionne est {}"]},
        "en": {"name": ["the name I was given is {}", "people address me as {}"],
               "age": ["I'm now aged {}", "at my last birthday I turned {}"],
               "city": ["my flat is located in {}", "I currently reside over in {}"],
               "pet": ["our {s} is known as {}", "I share my home with a {s} called {}"],
               "date": ["my birthday lands on {}", "my cake gets candles every {}"],
               "number": ["the number I'd pick is {}", "the number dearest to me is {}"]},
    },
    ask={"fr": ["Tu as encore en tête {} ?", "Pourrais-tu me rappeler {} ?"],
         "en": ["Can you bring back {}?", "Still got {} stored?"]},
    ask_one={
        "fr": {"name": ["Mon prénom, tu l'as toujours ?"], "age": ["Quel âge j'ai, au juste ?"],
               "city": ["Dans quelle ville je vis, au juste ?"],
               "pet": ["Comment se nomme mon animal ?"],
               "date": ["Mon anniversaire, c'est à quelle date ?"],
               "number": ["Mon nombre à moi, c'est lequel ?"]},
        "en": {"name": ["What's my name, again?"], "age": ["What age am I, then?"],
               "city": ["Which town is mine?"], "pet": ["What's my pet called, again?"],
               "date": ["My birthday is on which day?"],
               "number": ["Which number did I say I like?"]}},
    openers={"fr": ["", "Tant que j'y pense, ", "Juste une chose : ", "Une parenthèse : "],
             "en": ["", "While I think of it, ", "Side note: ", "Before I forget, "]},
    greetings={"fr": ["Holà", "Hé ho"], "en": ["Hullo", "Morning all"]},
    small_talk={
        "fr": [("Il pleut des cordes.", "Reste bien au sec !"),
               ("Je fais du jardinage.", "Bon jardinage !"),
               ("Mon chat dort sur le clavier.", "Il a trouvé une bonne place."),
               ("J'ai fini mon livre.", "Bravo, il t'a plu ?"),
               ("Je cherche une recette.", "Bonne recherche !"),
               ("Le soleil se couche.", "C'est un joli moment."),
               ("J'attends un colis.", "J'espère qu'il arrivera vite."),
               ("Je suis en vacances.", "Profite bien !")],
        "en": [("It's pouring with rain.", "Stay dry!"),
               ("I'm doing some gardening.", "Happy gardening!"),
               ("My cat sleeps on the keyboard.", "It found a good spot."),
               ("I finished my book.", "Well done, did you like it?"),
               ("I'm looking for a recipe.", "Good luck finding one!"),
               ("The sun is setting.", "That's a nice moment."),
               ("I'm waiting for a parcel.", "I hope it comes soon."),
               ("I'm on holiday.", "Enjoy it!")]},
)
