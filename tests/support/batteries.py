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

M64 = (1 << 64) - 1


def splitmix64(state):
    """(new state, output) of splitmix64."""
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def mix(key, word):
    return splitmix64(key ^ word)[1]


def xoshiro(key):
    """xoshiro256** seeded by four successive splitmix64 outputs of key."""
    s, st = [], key
    for _ in range(4):
        st, out = splitmix64(st)
        s.append(out)
    rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & M64
    while True:
        result = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        yield result


def repeat_random(index, s, bos, ordinary, seed=42):
    """Sequence `index` of the repeat-random battery as the README defines it:
    [bos] r1..rS r1..rS, each r = ordinary[x mod len(ordinary)] for the next x
    of xoshiro256** keyed mix(mix(mix(seed, 9), 0), index) that is below
    2^64 - 2^64 mod len(ordinary) (rejection keeps the draw uniform)."""
    key = mix(mix(mix(seed, 9), 0), index)
    span = len(ordinary)
    limit = (1 << 64) - (1 << 64) % span
    gen, r = xoshiro(key), []
    while len(r) < s:
        x = next(gen)
        if x < limit:
            r.append(ordinary[x % span])
    return [bos] + r + r


if __name__ == "__main__":
    # the first sequence of seed 42 with S = 6 over ids 0..999, BOS 7 (test_headtests checks the same)
    print(repeat_random(0, 6, 7, list(range(1000))))
