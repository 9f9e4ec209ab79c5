"""The text battery of attnviz's head tests and mean ablation
(src/trained/battery.c: text-en), for the NumPy references (interv.py). The
two lists are compared by their token count (interv.py: battery_ids)."""

TEXT_EN = [
    "Once upon a time there was a little girl who loved to play in the garden with her dog.",
    "The train left the station at seven, and by noon we could see the mountains from the window.",
    "She opened the letter slowly, read it twice, and then put it back in the drawer without a word.",
    "Water boils at a lower temperature on a high mountain because the air pressure is lower there.",
    "The children ran to the river after school, where the old man was fishing from the bridge.",
    "When the rain stopped, the streets were quiet and the smell of wet grass filled the town.",
    "He asked the teacher why the sky is blue, and she drew the sun and the air on the board.",
    "My grandmother grows tomatoes, beans and peppers, and every summer she gives them to the neighbours.",
    "The museum was closed on Monday, so we walked along the harbour and watched the boats come in.",
    "A good map shows the roads, the rivers and the towns, and tells you how far apart they are.",
    "The cat sat by the window all afternoon, watching the birds that came to eat the bread.",
    "After dinner the family played cards, and the youngest brother won every game but the last.",
]
