"""Name lists for the chat dialogues (chat_data.py): real first names from many languages, pet
names, cities, and a generator of pronounceable pseudo-names. Every list is split: entry i is
held out iff i % HELDOUT_EVERY == HELDOUT_EVERY - 1 (chat_data.split)."""
from __future__ import annotations

import random

FIRST_NAMES = list(dict.fromkeys("""
Marie Jean Pierre Sophie Lucas Camille Hugo Chloé Louis Emma Nathan Léa Paul Manon Thomas Julie
Antoine Claire Nicolas Sarah Julien Laura Maxime Inès Mathieu Jade Alexandre Zoé Guillaume Anaïs
Romain Lucie Adrien Elodie Baptiste Margaux Clément Océane Vincent Pauline Olivier Mathilde Quentin
Juliette Arthur Eloïse Théo Agathe Raphaël Noémie Gabriel Louise Jules Alice Victor Amélie Étienne
Céline Benoît Hélène François Valérie Gaëlle Hervé Josiane Yannick Brigitte Thierry Sylvie Pascal
Nadia Karim Yasmine Mehdi Leïla Samir Fatou Moussa Aïcha John Mary James Emily Michael David
Jessica Daniel Olivia William Sophia Robert Grace Hannah Andrew Chloe Matthew Lily Joseph Ella
Benjamin Ava Samuel Ruby Henry Oliver Charlotte George Amelia Edward Isla Harry Freya Jack Poppy
Oscar Evie Charlie Daisy Leo Rosie Archie Phoebe Alfie Imogen Finley Holly Ethan Megan Ryan Peter
Helen Simon Fiona Mark Rachel Karen Steven Julia Kevin Nina Brian Tara Derek Wendy Gavin Norah
Felix Iris Miles Stella Ivy Rupert Hazel Angus Maisie Declan Orla Rajesh Priya Arjun Kiran Wei Mei
Kenji Yuki Diego Lucia Mateo Sofia Omar Amira Tariq Zara Aurélien Bérénice Cédric Delphine
Émilie Fabrice Géraldine Hortense Isabelle Jacques Karine Laurent Marc Nathalie Odile Patrice
Renée Sébastien Thibault Ursule Véronique Xavier Yvonne Gisèle Arnaud Blanche Cyril Dorothée
Eugène Flore Gaston Honorine Irène Joël Laetitia Mireille Noël Perrine Rémi Solène Tristan Viviane
Gérard Colette Lionel Murielle Fernand Josette Armand Ginette Marcel Simone Albert Lucienne Raymond
Annie Bernard Martine Didier Chantal Serge Danielle Patrick Monique Alain Nicole Michel Sandrine
Stéphane Aurore Maëlle Lilou Maël Timéo Nolan Enzo Lina Rose Anna Mila Ambre Lou Axel Sacha Noah
Liam Adam Aaron Eden Elise Héloïse Capucine Apolline Victoire Ninon Garance Marius Gaspard Achille
Anatole Basile Célestin Côme Firmin Léon Lucien Octave Philémon Auguste Joséphine Madeleine
Albane Bertille Clémence Eulalie Félicie Marguerite Paulette Suzanne Yvette Hans Klaus Jürgen
Dieter Wolfgang Helmut Uwe Sabine Ursula Heike Birgit Katrin Anke Jens Sven Lars Nils Björn Ingrid
Astrid Sigrid Freja Linnea Elsa Maja Ebba Olle Pekka Jukka Aino Eero Sanna Tuula Janne Mikko
Kaisa Oskar Fredrik Henrik Magnus Ulla Greta Hedda Ole Kasper Mads Rasmus Signe Frida Tove Piet
Joost Bram Sanne Femke Lotte Daan Sem Ruben Maarten Willem Anouk Fleur Giovanni Giuseppe Marco
Luca Alessandro Francesca Chiara Giulia Federica Matteo Lorenzo Davide Simone Paola Elena Silvia
Valentina Riccardo Stefano Pietro Carla Teresa Beatrice Gianni Rocco Salvatore Vittoria Bianca
Carlos Javier Miguel Pablo Alejandro Fernando Rafael Sergio Jorge Andrés Ramón Isabel Carmen
Dolores Pilar Rocío Marisol Lourdes Inmaculada Alba Nerea Iker Unai Aitor Ainhoa João Tiago
Rodrigo Gonçalo Inês Beatriz Leonor Mariana Raquel Vasco Duarte Afonso Ivan Dmitri Sergei Boris
Nikolai Pavel Mikhail Alexei Oleg Yuri Natasha Olga Svetlana Tatiana Irina Ludmila Anastasia
Ekaterina Vera Galina Piotr Tomasz Krzysztof Wojciech Agnieszka Katarzyna Małgorzata Magdalena
Zofia Jakub Kacper Ondřej Jiří Petra Tereza Lucie Zuzana Bohdan Taras Oksana Yaroslav Dragan
Milan Goran Jelena Ivana Marija Nikola Luka Stefan Andrei Mihai Ioana Elena Bogdan Florin Georgios
Dimitris Nikos Eleni Katerina Sofia Yannis Kostas Ahmet Mehmet Mustafa Emre Elif Zeynep Ayşe
Fatma Deniz Burak Cem Selin Hakan Yusuf Ibrahim Hassan Hussein Khalid Mahmoud Nour Salma Rania
Layla Hiba Youssef Rachid Farid Nabil Samira Malika Zineb Amine Bilal Sofiane Walid Ilyes Kamel
Djamila Farah Aziz Kofi Kwame Ama Abena Chidi Ngozi Emeka Adaeze Oluwaseun Tunde Folake Amara
Themba Sipho Thandiwe Zanele Mandla Aliyu Musa Halima Abdou Mamadou Aminata Ousmane Ibrahima
Awa Khady Seydou Mariam Koffi Yao Adjoa Kaveh Dariush Shirin Parisa Navid Ravi Sunita Anil Deepak
Pooja Neha Rahul Vikram Lakshmi Meera Sanjay Aditi Rohan Kavya Ishaan Ananya Vivek Divya Hiroshi
Takeshi Haruto Sakura Aiko Yumi Ren Sora Hana Daiki Kaito Minji Jisoo Hyun Seojun Jiwoo Eunji
Minho Taeyang Chen Li Ming Xiao Jun Hui Lan Fang Jing Tao Bao Linh Minh Thanh Huong Anh Quang
Somchai Niran Kanya Malee Arief Budi Siti Dewi Putri Rizal Maria Jose Rosa Juan Luz Alejandra
Camila Valeria Ximena Santiago Sebastián Emiliano Renata Guadalupe Esperanza Paloma Catalina
Joaquín Ignacio Agustina Florencia Tomás Benicio Thiago Gael Lautaro Martina Malia Keanu Kai
Leilani Aroha Tane Wiremu Ngaio Aisling Siobhan Niamh Ciara Eoin Cillian Padraig Oisín Rhys Dylan
Gethin Carys Megan Bethan Ffion Iolo Eilidh Morag Hamish Callum Ewan Fergus Isla Catriona Kirsty
Ross Bruce Duncan Mabel Edith Florence Harriet Agnes Beatrice Winifred Cecil Percy Reginald Clive
Nigel Trevor Graham Colin Barry Dennis Maureen Brenda Sheila Pamela Gloria Dolly Tanner Cody
Brandon Tyler Austin Kayla Brittany Ashley Madison Savannah Tiffany Chelsea Destiny Jaden Logan
Mason Hunter Carter Wyatt Colton Aubrey Harper Avery Skylar Quinn Riley Morgan Jordan Taylor
""".split()))

PET_NAMES = list(dict.fromkeys("""
Minou Félix Rex Kiki Caramel Noisette Pompon Filou Moka Titi Ficelle Biscuit Praline Réglisse
Tigrou Chaussette Plume Pépite Gribouille Vanille Cannelle Nougat Pistache Whiskers Buddy Max
Bella Luna Rocky Coco Milo Pepper Ginger Shadow Smokey Muffin Pickles Nugget Bubbles Sunny Peanut
Socks Ziggy Waffles Toffee Mango Noodle Pixel Bandit Sushi Patch Tango Marble Flocon Câlin
Sésame Crumble Brioche Galette Choupette Frimousse Pirate Zorro Scotch Polux Ulysse Hector
Pacha Cookie Oreo Pumpkin Jasper Biscotte Bambou Cachou Domino Églantine Fripon Grisou Lulu
Mistral Nénette Olaf Perle Quenotte Ronron Sultan Taquin Voyou Wasabi Yoda Zéphyr Baloo Simba
Nala Kiwi Pesto Tofu Nacho Chorizo Gizmo Sprout Twix Ruffles Bingo Dusty Fudge Maple Pebble
Rusty Scout Tiger Willow Ziggy Juniper Clover Basil Olive Poppy Hazel Mochi Pudding Chewie
""".split()))

CITIES_FR = """Paris Lyon Marseille Toulouse Nice Nantes Strasbourg Montpellier Bordeaux Lille
Rennes Reims Toulon Grenoble Dijon Angers Nîmes Brest Tours Limoges Amiens Perpignan Metz
Besançon Orléans Rouen Caen Nancy Avignon Poitiers Pau Calais Annecy Bayonne Colmar Valence
Chambéry Quimper Lorient Bruxelles Genève Lausanne Liège Montréal Québec Namur Ajaccio Bastia
Arras Vannes Lannion Blois Bourges Chartres Troyes Auxerre Mâcon Niort Agen Albi Cahors Rodez
Tarbes Dax Biarritz Sète Arles Gap Digne Menton Cannes Antibes Grasse Vichy Roanne Épinal
Verdun Sedan Dunkerque Cherbourg Lisieux Évreux Laval Cholet Saintes Cognac Périgueux""".split()

CITIES_EN = """London Manchester Liverpool Leeds Bristol Glasgow Edinburgh Cardiff Belfast Dublin
Oxford Cambridge York Bath Brighton Norwich Leicester Nottingham Sheffield Newcastle Aberdeen
Dundee Exeter Plymouth Chicago Boston Seattle Denver Austin Dallas Phoenix Atlanta Miami Portland
Toronto Vancouver Ottawa Sydney Melbourne Auckland Wellington Perth Adelaide Brisbane Hobart
Darwin Calgary Halifax Winnipeg Memphis Nashville Orlando Tampa Detroit Cleveland Pittsburgh
Baltimore Richmond Raleigh Omaha Tulsa Reno Tucson Albany Hartford Buffalo Rochester Spokane
Boise Anchorage Honolulu Derby Durham Chester Lincoln Swansea Inverness Galway Cork Limerick
Reading Oxford Bolton Wigan Preston Blackpool Carlisle Hull Stoke Coventry""".split()
CITIES_EN = list(dict.fromkeys(CITIES_EN))

# Pieces of pseudo-names: syllables (onset + vowel), then a coda or an ending; spelled like
# European names so that they share token pieces with real ones.
ONSETS = """b c d f g h j k l m n p r s t v w z b d l m n r s t ch sh th br dr fr gr tr cl fl
st""".split()
VOWELS = "a a a e e e i i o o u y ou ai é".split()
FINALS = [""] * 8 + """n l r s m nd ll rt a e o ine ette an el ia ie""".split()


def syllables(rng: random.Random, k: int) -> str:
    """k syllables (onset + vowel) and a coda or ending, in small letters."""
    return "".join(rng.choice(ONSETS) + rng.choice(VOWELS) for _ in range(k)) + rng.choice(FINALS)


def pseudo_name(rng: random.Random) -> str:
    while True:
        n = syllables(rng, rng.choice([1, 2, 2, 3]))
        if len(n) >= 3:
            return n.capitalize()


def long_name(rng: random.Random, pool: list[str]) -> str:
    """A name of many tokens (train.py --long-names): a real name of `pool` run on by one or two
    syllables ("Clement" -> "Clementoune"), or a pseudo-name of three to five syllables. A
    model that copies a long name stops at the first piece it knows as a name's end; here a
    known name is only the name's beginning."""
    if rng.random() < 0.5:
        return rng.choice(pool) + syllables(rng, rng.randint(1, 2))
    return syllables(rng, rng.randint(3, 5)).capitalize()


# Names as arbitrary strings, so that a name is "the word in the name's place", whatever it looks
# like: letter salad in any case, compounds, pseudo-names in capitals or small letters. (Names
# in Greek or Cyrillic letters were tried: with this 1024-token vocabulary they are runs of byte
# tokens, and the model learnt to emit such runs, looping; docs/training.md.)
LETTERS = "abcdefghijklmnopqrstuvwxyzéèïöüñç"


def letter_salad(rng: random.Random) -> str:
    """2 to 10 random letters; capitalised, all capitals, all small or mixed case."""
    s = "".join(rng.choice(LETTERS) for _ in range(rng.randint(2, 10)))
    case = rng.random()
    if case < 0.5:
        return s.capitalize()
    if case < 0.65:
        return s.upper()
    if case < 0.8:
        return s
    return "".join(c.upper() if rng.random() < 0.4 else c for c in s)


def arbitrary_name(rng: random.Random) -> str:
    u = rng.random()
    if u < 0.5:
        return letter_salad(rng)
    if u < 0.75:
        return pseudo_name(rng) + "-" + pseudo_name(rng)
    n = pseudo_name(rng)
    return n.upper() if u < 0.88 else n.lower()
