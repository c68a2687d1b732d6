"""The worked examples of the SRT paper (Alevizos, Artikis, Paliouras), shared by the semantics and SRT tests.
Positions are 0-based (the paper's are 1-based)."""

from cer_theory.core.events import Event


def ev(t, i, price=0, vol=0):
    return Event(t, id=i, price=price, vol=vol)


# Table 1 (type, id, price, vol)
TABLE_1 = [ev("B", 1, 22, 300), ev("B", 1, 24, 225), ev("B", 2, 32, 1210), ev("S", 1, 70, 760),
           ev("S", 1, 68, 2000), ev("B", 2, 33, 95)]
E1 = '<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'
E1_STREAM = {3: {(0, 3), (1, 3)}, 4: {(0, 4), (1, 4)}}
E1_W4_STREAM = {3: {(0, 3), (1, 3)}, 4: {(1, 4)}}

# eq. 4, strictly contiguous
E2 = '(<type = "B" AND price < 10> -> r1 | <type = "B" AND price > 500> -> r1) . <type = "S" AND id = r1.id>'
E2_STREAM_DATA = [ev("B", 1, 5), ev("B", 2, 600), ev("S", 2, 50), ev("S", 1, 40)]
E2_STREAM = {2: {(1, 2)}}

# Table 4
TABLE_4 = [ev(t, 1) for t in "BBBSBS"]
E4 = '(<type = "B"> -> r1)+ . <type = "S" AND id = r1.id>'
E4_STREAM = {3: {(0, 1, 2, 3), (1, 2, 3), (2, 3)}, 5: {(4, 5)}}
E4_PLUS_STREAM = {3: E4_STREAM[3], 5: {(4, 5), (0, 1, 2, 3, 4, 5), (1, 2, 3, 4, 5), (2, 3, 4, 5)}}

# seq3-like STAM (§7)
SEQ3_DATA = [Event("INTC", price=10), Event("RIMM", price=5), Event("INTC", price=30), Event("RIMM", price=6),
             Event("QQQ", price=20), Event("QQQ", price=40)]
SEQ3 = 'ANY(<type = "INTC"> -> r1, <type = "RIMM">, <type = "QQQ" AND price > r1.price>)'
SEQ3_STREAM = {4: {(0, 1, 4), (0, 3, 4)}, 5: {(0, 1, 5), (0, 3, 5), (2, 3, 5)}}
SEQ3_W4_STREAM = {5: {(2, 3, 5)}}

# Thm 38 (corrected strings, P10)
THM38 = '[TRUE]* . [type = "a"] -> r1 . [TRUE]* . <type = "b" AND id = r1.id>'
THM38_ACCEPTED = [[Event("a", id=2), Event("a", id=3), Event("b", id=2)]]
THM38_REJECTED = [[Event("a", id=1), Event("b", id=2)], [Event("a", id=1), Event("a", id=3), Event("b", id=2)]]


def as_dict(outputs):
    return {o.k: {tuple(sorted(m)) for m in o.matches} for o in outputs}
