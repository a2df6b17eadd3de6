"""source.py - graveyard's built-in code problems, as written (data/code).

Every problem here was written for this project: its wording, its
solution, its tests and its wrong version. make_problems.py --write turns
this table into problems.jsonl (HumanEval's shape) and checks it.

Each problem: the entry point, the imports its prompt needs, the def line,
the docstring's text (with one or two >>> examples), the body (the
canonical solution, indented as HumanEval's are), the asserts (one
statement each, run separately), a plausible wrong body (fails at least
one assert, passes at least one), and an optional test preamble (helpers
the asserts use).
"""

PROBLEMS = []


def P(entry, sig, doc, body, tests, wrong, imports="", preamble=""):
    PROBLEMS.append({"entry": entry, "sig": sig, "doc": doc, "body": body,
                     "tests": tests, "wrong": wrong, "imports": imports,
                     "preamble": preamble})


# ---- easy: strings and lists ----------------------------------------------

P("reverse_words", "def reverse_words(sentence: str) -> str:",
  """Return the words of sentence in reverse order, joined by single spaces.
Runs of spaces between words and spaces at either end are dropped.
>>> reverse_words('the quick fox')
'fox quick the'""",
  """    return " ".join(reversed(sentence.split()))
""",
  ["candidate('the quick fox') == 'fox quick the'",
   "candidate('') == ''",
   "candidate('one') == 'one'",
   "candidate('  leading and trailing  ') == 'trailing and leading'",
   "candidate('a    b') == 'b a'",
   "candidate('x y z w') == 'w z y x'"],
  """    return " ".join(reversed(sentence.split(" ")))
""")

P("count_vowels", "def count_vowels(text: str) -> int:",
  """Count the vowels a, e, i, o and u in text, in either case. The letter y
is never counted.
>>> count_vowels('Banana')
3""",
  """    return sum(1 for ch in text if ch in "aeiouAEIOU")
""",
  ["candidate('Banana') == 3",
   "candidate('') == 0",
   "candidate('rhythm') == 0",
   "candidate('AEIOU') == 5",
   "candidate('Queueing') == 5",
   "candidate('xyz') == 0"],
  """    return sum(1 for ch in text if ch in "aeiou")
""")

P("running_total", "def running_total(values: List[int]) -> List[int]:",
  """Return the running totals of values: element i is the sum of values[0]
to values[i], both included.
>>> running_total([1, 2, 3])
[1, 3, 6]""",
  """    totals = []
    acc = 0
    for v in values:
        acc += v
        totals.append(acc)
    return totals
""",
  ["candidate([1, 2, 3]) == [1, 3, 6]",
   "candidate([]) == []",
   "candidate([5]) == [5]",
   "candidate([0, 0]) == [0, 0]",
   "candidate([-1, 1, -1]) == [-1, 0, -1]",
   "candidate([10, 20, 30, 40]) == [10, 30, 60, 100]"],
  """    return [sum(values[:i]) for i in range(len(values))]
""", imports="from typing import List")

P("capitalize_words", "def capitalize_words(text: str) -> str:",
  """Upper-case the first letter of every word in text, where words are
separated by single spaces, and leave every other character as it is.
>>> capitalize_words('hello world')
'Hello World'
>>> capitalize_words('mcDonald farm')
'McDonald Farm'""",
  """    return " ".join(w[:1].upper() + w[1:] for w in text.split(" "))
""",
  ["candidate('hello world') == 'Hello World'",
   "candidate('mcDonald farm') == 'McDonald Farm'",
   "candidate('') == ''",
   "candidate('a') == 'A'",
   "candidate('already Done') == 'Already Done'",
   "candidate(\"it's HTML\") == \"It's HTML\"",
   "candidate('two  spaces') == 'Two  Spaces'"],
  """    return text.title()
""")

P("remove_duplicates", "def remove_duplicates(items: List[int]) -> List[int]:",
  """Return items without repeats, keeping the first occurrence of each value
in its original place.
>>> remove_duplicates([3, 1, 3, 2, 1])
[3, 1, 2]""",
  """    seen = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out
""",
  ["candidate([3, 1, 3, 2, 1]) == [3, 1, 2]",
   "candidate([]) == []",
   "candidate([1, 2, 3]) == [1, 2, 3]",
   "candidate([7, 7, 7]) == [7]",
   "candidate([5, 4, 5, 4]) == [5, 4]",
   "candidate([0, -1, 0, -2]) == [0, -1, -2]"],
  """    return sorted(set(items))
""", imports="from typing import List")

P("is_palindrome_phrase", "def is_palindrome_phrase(text: str) -> bool:",
  """Whether text reads the same backwards once everything but letters and
digits is removed and case is ignored.
>>> is_palindrome_phrase('Never odd or even')
True""",
  """    kept = [ch.lower() for ch in text if ch.isalnum()]
    return kept == kept[::-1]
""",
  ["candidate('Never odd or even') is True",
   "candidate('') is True",
   "candidate('abc') is False",
   "candidate('A man, a plan, a canal: Panama') is True",
   "candidate('racecar') is True",
   "candidate('12 21') is True",
   "candidate('ab2a') is False"],
  """    kept = [ch for ch in text if ch.isalnum()]
    return kept == kept[::-1]
""")

P("chunk", "def chunk(items: List[int], size: int) -> List[List[int]]:",
  """Split items into consecutive lists of size elements; the last list may be
shorter. size is at least 1.
>>> chunk([1, 2, 3, 4, 5], 2)
[[1, 2], [3, 4], [5]]""",
  """    return [items[i:i + size] for i in range(0, len(items), size)]
""",
  ["candidate([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]",
   "candidate([], 3) == []",
   "candidate([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]",
   "candidate([1, 2], 5) == [[1, 2]]",
   "candidate([9], 1) == [[9]]",
   "candidate([1, 2, 3, 4, 5, 6, 7], 3) == [[1, 2, 3], [4, 5, 6], [7]]"],
  """    return [items[i:i + size] for i in range(0, len(items) - len(items) % size, size)]
""", imports="from typing import List")

P("second_largest", "def second_largest(values: List[int]) -> Optional[int]:",
  """Return the second largest distinct value in values, or None when there
are fewer than two distinct values.
>>> second_largest([4, 9, 2])
4
>>> second_largest([5, 5])""",
  """    distinct = sorted(set(values))
    if len(distinct) < 2:
        return None
    return distinct[-2]
""",
  ["candidate([4, 9, 2]) == 4",
   "candidate([5, 5]) is None",
   "candidate([]) is None",
   "candidate([1, 2]) == 1",
   "candidate([9, 9, 3]) == 3",
   "candidate([-3, -1, -2]) == -2"],
  """    if len(values) < 2:
        return None
    return sorted(values)[-2]
""", imports="from typing import List, Optional")

P("count_words", "def count_words(text: str) -> Dict[str, int]:",
  """Count the words of text, split on whitespace, ignoring case: the keys are
the words in lower case.
>>> count_words('The cat the hat')
{'the': 2, 'cat': 1, 'hat': 1}""",
  """    counts = {}
    for word in text.lower().split():
        counts[word] = counts.get(word, 0) + 1
    return counts
""",
  ["candidate('The cat the hat') == {'the': 2, 'cat': 1, 'hat': 1}",
   "candidate('') == {}",
   "candidate('a a a') == {'a': 3}",
   "candidate('Go GO go') == {'go': 3}",
   "candidate('x\\ty\\nx') == {'x': 2, 'y': 1}"],
  """    counts = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    return counts
""", imports="from typing import Dict")

P("interleave", "def interleave(a: List[int], b: List[int]) -> List[int]:",
  """Alternate the elements of a and b, starting with a; when one list runs
out, the rest of the other follows.
>>> interleave([1, 3], [2, 4, 6, 8])
[1, 2, 3, 4, 6, 8]""",
  """    out = []
    for i in range(max(len(a), len(b))):
        if i < len(a):
            out.append(a[i])
        if i < len(b):
            out.append(b[i])
    return out
""",
  ["candidate([1, 3], [2, 4, 6, 8]) == [1, 2, 3, 4, 6, 8]",
   "candidate([], []) == []",
   "candidate([1, 2], [3, 4]) == [1, 3, 2, 4]",
   "candidate([1, 2, 3], []) == [1, 2, 3]",
   "candidate([], [7]) == [7]",
   "candidate([5, 6, 7], [0]) == [5, 0, 6, 7]"],
  """    out = []
    for x, y in zip(a, b):
        out.extend([x, y])
    return out
""", imports="from typing import List")

P("digit_sum", "def digit_sum(n: int) -> int:",
  """Return the sum of the decimal digits of n; the sign is ignored.
>>> digit_sum(1234)
10
>>> digit_sum(-56)
11""",
  """    return sum(int(d) for d in str(abs(n)))
""",
  ["candidate(1234) == 10",
   "candidate(-56) == 11",
   "candidate(0) == 0",
   "candidate(9) == 9",
   "candidate(10 ** 30) == 1",
   "candidate(-909) == 18"],
  """    total = 0
    while n > 0:
        total += n % 10
        n //= 10
    return total
""")

P("initials", "def initials(full_name: str) -> str:",
  """Return the initials of full_name: the first letter of each word, upper
case, each followed by a full stop.
>>> initials('ada lovelace')
'A.L.'""",
  """    return "".join(w[0].upper() + "." for w in full_name.split())
""",
  ["candidate('ada lovelace') == 'A.L.'",
   "candidate('') == ''",
   "candidate('Grace Brewster Hopper') == 'G.B.H.'",
   "candidate('x') == 'X.'",
   "candidate('  alan   turing ') == 'A.T.'"],
  """    return ".".join(w[0].upper() for w in full_name.split())
""")

P("longest_run", "def longest_run(values: List[int]) -> int:",
  """Return the length of the longest run of equal adjacent values in values,
0 for an empty list.
>>> longest_run([1, 1, 2, 2, 2, 1])
3""",
  """    best = 0
    run = 0
    for i, v in enumerate(values):
        run = run + 1 if i > 0 and values[i - 1] == v else 1
        best = max(best, run)
    return best
""",
  ["candidate([1, 1, 2, 2, 2, 1]) == 3",
   "candidate([]) == 0",
   "candidate([4]) == 1",
   "candidate([1, 2, 3]) == 1",
   "candidate([1, 2, 2, 2, 2]) == 4",
   "candidate([7, 7]) == 2"],
  """    best = 0
    run = 1
    for i in range(1, len(values)):
        if values[i] == values[i - 1]:
            run += 1
        else:
            best = max(best, run)
            run = 1
    return best
""", imports="from typing import List")

P("rotate_left", "def rotate_left(items: List[int], k: int) -> List[int]:",
  """Rotate items left by k places (k >= 0, possibly larger than the list).
>>> rotate_left([1, 2, 3, 4], 1)
[2, 3, 4, 1]""",
  """    if not items:
        return []
    k %= len(items)
    return items[k:] + items[:k]
""",
  ["candidate([1, 2, 3, 4], 1) == [2, 3, 4, 1]",
   "candidate([], 3) == []",
   "candidate([1, 2, 3], 0) == [1, 2, 3]",
   "candidate([1, 2, 3], 3) == [1, 2, 3]",
   "candidate([1, 2, 3], 4) == [2, 3, 1]",
   "candidate([1, 2, 3, 4, 5], 7) == [3, 4, 5, 1, 2]"],
  """    return items[k:] + items[:k]
""", imports="from typing import List")

P("snake_to_camel", "def snake_to_camel(name: str) -> str:",
  """Turn a snake_case name into camelCase: the first word all lower case,
each later word with its first letter upper case and the rest lower case.
Empty words (from doubled underscores) are dropped.
>>> snake_to_camel('hello_world')
'helloWorld'
>>> snake_to_camel('HTTP_server')
'httpServer'""",
  """    words = [w for w in name.split("_") if w]
    if not words:
        return ""
    return words[0].lower() + "".join(w.capitalize() for w in words[1:])
""",
  ["candidate('hello_world') == 'helloWorld'",
   "candidate('HTTP_server') == 'httpServer'",
   "candidate('') == ''",
   "candidate('one') == 'one'",
   "candidate('a__b') == 'aB'",
   "candidate('make_ID_card') == 'makeIdCard'"],
  """    words = [w for w in name.split("_") if w]
    if not words:
        return ""
    return words[0] + "".join(w.capitalize() for w in words[1:])
""")

# ---- middling: parsing, dynamic programming, dates, intervals -------------

P("parse_duration", "def parse_duration(text: str) -> int:",
  """Return the number of seconds in a duration written as hours, minutes and
seconds, each optional but in that order, such as '1h30m' or '45s'.
>>> parse_duration('1h30m')
5400""",
  """    units = {"h": 3600, "m": 60, "s": 1}
    total = 0
    num = 0
    for ch in text:
        if ch.isdigit():
            num = num * 10 + int(ch)
        else:
            total += num * units[ch]
            num = 0
    return total
""",
  ["candidate('1h30m') == 5400",
   "candidate('5s') == 5",
   "candidate('2h') == 7200",
   "candidate('45s') == 45",
   "candidate('1h2m3s') == 3723",
   "candidate('90m') == 5400"],
  """    units = {"h": 3600, "m": 60, "s": 1}
    total = 0
    num = 0
    for ch in text:
        if ch.isdigit():
            num = int(ch)
        else:
            total += num * units[ch]
            num = 0
    return total
""")

P("merge_intervals",
  "def merge_intervals(intervals: List[Tuple[int, int]]) -> List[Tuple[int, int]]:",
  """Merge overlapping closed intervals (start <= end) and return them sorted
by start. Intervals that touch, such as (1, 2) and (2, 3), merge.
>>> merge_intervals([(5, 8), (1, 3), (2, 4)])
[(1, 4), (5, 8)]""",
  """    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
""",
  ["candidate([(5, 8), (1, 3), (2, 4)]) == [(1, 4), (5, 8)]",
   "candidate([]) == []",
   "candidate([(1, 2), (2, 3)]) == [(1, 3)]",
   "candidate([(1, 10), (2, 3)]) == [(1, 10)]",
   "candidate([(3, 3)]) == [(3, 3)]",
   "candidate([(1, 2), (4, 5), (2, 4)]) == [(1, 5)]",
   "candidate([(0, 1), (3, 4)]) == [(0, 1), (3, 4)]"],
  """    merged = []
    for start, end in sorted(intervals):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
""", imports="from typing import List, Tuple")

P("days_between", "def days_between(a: str, b: str) -> int:",
  """Return the number of days between two dates written as 'YYYY-MM-DD',
never negative.
>>> days_between('2024-02-27', '2024-03-01')
3""",
  """    d1 = date.fromisoformat(a)
    d2 = date.fromisoformat(b)
    return abs((d2 - d1).days)
""",
  ["candidate('2024-02-27', '2024-03-01') == 3",
   "candidate('2023-02-27', '2023-03-01') == 2",
   "candidate('2020-01-01', '2020-01-01') == 0",
   "candidate('2024-03-01', '2024-02-27') == 3",
   "candidate('1999-12-31', '2000-01-01') == 1",
   "candidate('2000-01-01', '1900-01-01') == 36524"],
  """    d1 = date.fromisoformat(a)
    d2 = date.fromisoformat(b)
    return (d2 - d1).days
""", imports="from datetime import date")

P("lcs_length", "def lcs_length(a: str, b: str) -> int:",
  """Return the length of the longest common subsequence of a and b: the
longest string whose characters appear in both, in order, not necessarily
next to each other.
>>> lcs_length('abcde', 'ace')
3""",
  """    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        for j, cb in enumerate(b):
            cur.append(prev[j] + 1 if ca == cb else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]
""",
  ["candidate('abcde', 'ace') == 3",
   "candidate('', 'abc') == 0",
   "candidate('abc', 'abc') == 3",
   "candidate('abc', 'def') == 0",
   "candidate('AGGTAB', 'GXTXAYB') == 4",
   "candidate('banana', 'atana') == 4"],
  """    best = 0
    for i in range(len(a)):
        for j in range(len(b)):
            k = 0
            while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                k += 1
            best = max(best, k)
    return best
""")

P("coin_change_ways", "def coin_change_ways(amount: int, coins: List[int]) -> int:",
  """Return the number of ways to make amount from coins of the given
distinct positive values, each usable any number of times; the order of
the coins does not matter. There is one way to make 0.
>>> coin_change_ways(4, [1, 2])
3""",
  """    ways = [1] + [0] * amount
    for c in coins:
        for total in range(c, amount + 1):
            ways[total] += ways[total - c]
    return ways[amount]
""",
  ["candidate(4, [1, 2]) == 3",
   "candidate(0, [1, 2]) == 1",
   "candidate(10, [5]) == 1",
   "candidate(3, [2]) == 0",
   "candidate(5, [1, 2, 5]) == 4",
   "candidate(100, [1, 5, 10, 25, 50]) == 292"],
  """    ways = [1] + [0] * amount
    for total in range(1, amount + 1):
        for c in coins:
            if c <= total:
                ways[total] += ways[total - c]
    return ways[amount]
""", imports="from typing import List")

P("parse_query", "def parse_query(query: str) -> Dict[str, List[str]]:",
  """Parse a URL query string such as 'a=1&b=2&a=3' into a dict from each key
to its values in order. A piece without '=' has the value ''; empty pieces
are skipped; only the first '=' of a piece separates key from value. No
percent-decoding is done.
>>> parse_query('a=1&b=2&a=3')
{'a': ['1', '3'], 'b': ['2']}""",
  """    out = {}
    for piece in query.split("&"):
        if not piece:
            continue
        key, _, value = piece.partition("=")
        out.setdefault(key, []).append(value)
    return out
""",
  ["candidate('a=1&b=2&a=3') == {'a': ['1', '3'], 'b': ['2']}",
   "candidate('') == {}",
   "candidate('flag') == {'flag': ['']}",
   "candidate('a=1&&b=2') == {'a': ['1'], 'b': ['2']}",
   "candidate('eq=x=y') == {'eq': ['x=y']}",
   "candidate('k=') == {'k': ['']}"],
  """    out = {}
    for piece in query.split("&"):
        if not piece:
            continue
        parts = piece.split("=")
        value = parts[1] if len(parts) > 1 else ""
        out.setdefault(parts[0], []).append(value)
    return out
""", imports="from typing import Dict, List")

P("roman_to_int", "def roman_to_int(numeral: str) -> int:",
  """Return the value of a Roman numeral in standard form (I, V, X, L, C, D,
M, with subtractive pairs such as IV and CM).
>>> roman_to_int('XIV')
14""",
  """    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    total = 0
    for i, ch in enumerate(numeral):
        v = values[ch]
        if i + 1 < len(numeral) and values[numeral[i + 1]] > v:
            total -= v
        else:
            total += v
    return total
""",
  ["candidate('XIV') == 14",
   "candidate('III') == 3",
   "candidate('VIII') == 8",
   "candidate('IX') == 9",
   "candidate('MCMXCIV') == 1994",
   "candidate('MMMCMXCIX') == 3999",
   "candidate('LX') == 60"],
  """    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    return sum(values[ch] for ch in numeral)
""")

P("int_to_roman", "def int_to_roman(n: int) -> str:",
  """Write n (1 to 3999) as a Roman numeral in standard form, using the
subtractive pairs IV, IX, XL, XC, CD and CM.
>>> int_to_roman(1994)
'MCMXCIV'""",
  """    table = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"),
             (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"),
             (5, "V"), (4, "IV"), (1, "I")]
    out = []
    for value, letters in table:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)
""",
  ["candidate(1994) == 'MCMXCIV'",
   "candidate(1) == 'I'",
   "candidate(3) == 'III'",
   "candidate(4) == 'IV'",
   "candidate(58) == 'LVIII'",
   "candidate(3999) == 'MMMCMXCIX'",
   "candidate(2024) == 'MMXXIV'"],
  """    table = [(1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"),
             (5, "V"), (1, "I")]
    out = []
    for value, letters in table:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)
""")

P("longest_increasing", "def longest_increasing(values: List[int]) -> int:",
  """Return the length of the longest strictly increasing subsequence of
values (not necessarily contiguous).
>>> longest_increasing([3, 1, 4, 1, 5, 9, 2, 6])
4""",
  """    tails = []
    for v in values:
        i = bisect_left(tails, v)
        if i == len(tails):
            tails.append(v)
        else:
            tails[i] = v
    return len(tails)
""",
  ["candidate([3, 1, 4, 1, 5, 9, 2, 6]) == 4",
   "candidate([]) == 0",
   "candidate([5, 4, 3]) == 1",
   "candidate([1, 2, 3, 4]) == 4",
   "candidate([2, 2, 2]) == 1",
   "candidate([1, 3, 3, 5]) == 3"],
  """    tails = []
    for v in values:
        i = bisect_right(tails, v)
        if i == len(tails):
            tails.append(v)
        else:
            tails[i] = v
    return len(tails)
""", imports="from bisect import bisect_left, bisect_right\nfrom typing import List")

P("edit_distance", "def edit_distance(a: str, b: str) -> int:",
  """Return the Levenshtein distance between a and b: the fewest one-character
insertions, deletions and substitutions that turn a into b.
>>> edit_distance('kitten', 'sitting')
3""",
  """    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]
""",
  ["candidate('kitten', 'sitting') == 3",
   "candidate('', '') == 0",
   "candidate('abc', '') == 3",
   "candidate('same', 'same') == 0",
   "candidate('a', 'b') == 1",
   "candidate('flaw', 'lawn') == 2"],
  """    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            step = prev[j - 1] if ca == cb else min(prev[j], cur[j - 1]) + 1
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, step))
        prev = cur
    return prev[-1]
""")

P("add_business_days", "def add_business_days(start: str, n: int) -> str:",
  """Return the date n business days (Monday to Friday) after start, both
written as 'YYYY-MM-DD'; n >= 0, and for n == 0 start itself is returned.
>>> add_business_days('2024-05-03', 1)
'2024-05-06'""",
  """    day = date.fromisoformat(start)
    while n > 0:
        day += timedelta(days=1)
        if day.weekday() < 5:
            n -= 1
    return day.isoformat()
""",
  ["candidate('2024-05-03', 1) == '2024-05-06'",
   "candidate('2024-05-06', 0) == '2024-05-06'",
   "candidate('2024-05-06', 2) == '2024-05-08'",
   "candidate('2024-05-04', 1) == '2024-05-06'",
   "candidate('2024-05-06', 5) == '2024-05-13'",
   "candidate('2024-12-31', 3) == '2025-01-03'",
   "candidate('2024-02-28', 2) == '2024-03-01'"],
  """    day = date.fromisoformat(start)
    return (day + timedelta(days=n)).isoformat()
""", imports="from datetime import date, timedelta")

P("balanced_brackets", "def balanced_brackets(text: str) -> bool:",
  """Whether the brackets (), [] and {} in text are balanced and properly
nested; every other character is ignored.
>>> balanced_brackets('f(a[1], {b})')
True
>>> balanced_brackets('([)]')
False""",
  """    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in text:
        if ch in "([{":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack.pop() != pairs[ch]:
                return False
    return not stack
""",
  ["candidate('f(a[1], {b})') is True",
   "candidate('([)]') is False",
   "candidate('') is True",
   "candidate('(((') is False",
   "candidate('no brackets') is True",
   "candidate('{[()()]}') is True",
   "candidate(')(') is False"],
  """    return (text.count("(") == text.count(")") and
            text.count("[") == text.count("]") and
            text.count("{") == text.count("}"))
""")

P("group_anagrams", "def group_anagrams(words: List[str]) -> List[List[str]]:",
  """Group words that are anagrams of each other. Groups come in the order of
their first word's appearance, and words within a group in input order.
>>> group_anagrams(['tea', 'eat', 'tan', 'ate', 'nat'])
[['tea', 'eat', 'ate'], ['tan', 'nat']]""",
  """    groups = {}
    for w in words:
        groups.setdefault("".join(sorted(w)), []).append(w)
    return list(groups.values())
""",
  ["candidate(['tea', 'eat', 'tan', 'ate', 'nat']) == [['tea', 'eat', 'ate'], ['tan', 'nat']]",
   "candidate([]) == []",
   "candidate(['a']) == [['a']]",
   "candidate(['ab', 'ba', 'ab']) == [['ab', 'ba', 'ab']]",
   "candidate(['zz', 'aa']) == [['zz'], ['aa']]",
   "candidate(['listen', 'google', 'silent']) == [['listen', 'silent'], ['google']]"],
  """    groups = {}
    for w in words:
        groups.setdefault("".join(sorted(w)), []).append(w)
    return sorted(groups.values())
""", imports="from typing import List")

P("free_slots",
  "def free_slots(busy: List[Tuple[int, int]], start: int, end: int) -> List[Tuple[int, int]]:",
  """Return the free gaps between start and end (minutes of the day) given the
busy intervals, which may overlap, come in any order, and reach outside
[start, end]. Gaps are (from, to) with from < to, in order.
>>> free_slots([(60, 120), (30, 90)], 0, 180)
[(0, 30), (120, 180)]""",
  """    free = []
    cursor = start
    for b_start, b_end in sorted(busy):
        if b_start > cursor:
            free.append((cursor, min(b_start, end)))
        cursor = max(cursor, b_end)
        if cursor >= end:
            break
    if cursor < end:
        free.append((cursor, end))
    return [(a, b) for a, b in free if a < b]
""",
  ["candidate([(60, 120), (30, 90)], 0, 180) == [(0, 30), (120, 180)]",
   "candidate([], 0, 60) == [(0, 60)]",
   "candidate([(0, 60)], 0, 60) == []",
   "candidate([(10, 20)], 0, 30) == [(0, 10), (20, 30)]",
   "candidate([(50, 70), (10, 20)], 0, 100) == [(0, 10), (20, 50), (70, 100)]",
   "candidate([(-10, 5), (90, 200)], 0, 100) == [(5, 90)]"],
  """    free = []
    cursor = start
    for b_start, b_end in busy:
        if b_start > cursor:
            free.append((cursor, min(b_start, end)))
        cursor = max(cursor, b_end)
        if cursor >= end:
            break
    if cursor < end:
        free.append((cursor, end))
    return [(a, b) for a, b in free if a < b]
""", imports="from typing import List, Tuple")

P("word_wrap", "def word_wrap(text: str, width: int) -> List[str]:",
  """Wrap the words of text (split on whitespace) greedily into lines of at
most width characters, words on a line separated by one space. A word
longer than width gets a line of its own.
>>> word_wrap('the quick brown fox', 10)
['the quick', 'brown fox']""",
  """    lines = []
    line = ""
    for word in text.split():
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines
""",
  ["candidate('the quick brown fox', 10) == ['the quick', 'brown fox']",
   "candidate('', 5) == []",
   "candidate('a b c', 5) == ['a b c']",
   "candidate('a b c', 3) == ['a b', 'c']",
   "candidate('extraordinary day', 5) == ['extraordinary', 'day']",
   "candidate('one two', 20) == ['one two']"],
  """    lines = []
    line = ""
    for word in text.split():
        if not line:
            line = word
        elif len(line) + 1 + len(word) < width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines
""", imports="from typing import List")

P("pascal_row", "def pascal_row(n: int) -> List[int]:",
  """Return row n of Pascal's triangle, counting the top row [1] as row 0.
>>> pascal_row(3)
[1, 3, 3, 1]""",
  """    row = [1]
    for _ in range(n):
        row = [1] + [row[i] + row[i + 1] for i in range(len(row) - 1)] + [1]
    return row
""",
  ["candidate(3) == [1, 3, 3, 1]",
   "candidate(0) == [1]",
   "candidate(1) == [1, 1]",
   "candidate(4) == [1, 4, 6, 4, 1]",
   "candidate(6) == [1, 6, 15, 20, 15, 6, 1]",
   "sum(candidate(20)) == 2 ** 20"],
  """    row = [1]
    for _ in range(n - 1):
        row = [1] + [row[i] + row[i + 1] for i in range(len(row) - 1)] + [1]
    return row
""", imports="from typing import List")

# ---- where small models slip ----------------------------------------------

P("truncate_text", "def truncate_text(text: str, limit: int) -> str:",
  """Shorten text to at most limit characters (limit >= 1). A text that is
too long is cut and ends with the single character '\u2026' (an ellipsis),
which counts towards the limit. Characters are code points, not bytes.
>>> truncate_text('hello world', 8)
'hello w\u2026'""",
  """    if len(text) <= limit:
        return text
    return text[:limit - 1] + "\\u2026"
""",
  ["candidate('hello world', 8) == 'hello w\\u2026'",
   "candidate('short', 10) == 'short'",
   "candidate('exact', 5) == 'exact'",
   "candidate('abcdef', 1) == '\\u2026'",
   "candidate('na\\u00efve caf\\u00e9', 6) == 'na\\u00efve\\u2026'",
   "len(candidate('x' * 100, 10)) == 10",
   "candidate('', 3) == ''"],
  """    if len(text) <= limit:
        return text
    return text[:limit] + "\\u2026"
""")

P("round_money", "def round_money(amount: str) -> str:",
  """Round a decimal amount written as a string to two places, halves away
from zero, and return it with exactly two decimals. The amount must be
rounded as written, not as a binary float.
>>> round_money('2.675')
'2.68'
>>> round_money('-1.005')
'-1.01'""",
  """    value = Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return f"{value:.2f}"
""",
  ["candidate('2.675') == '2.68'",
   "candidate('-1.005') == '-1.01'",
   "candidate('1.5') == '1.50'",
   "candidate('0') == '0.00'",
   "candidate('10.125') == '10.13'",
   "candidate('1.234') == '1.23'",
   "candidate('99999999999999999.995') == '100000000000000000.00'"],
  """    return f"{round(float(amount), 2):.2f}"
""", imports="from decimal import Decimal, ROUND_HALF_UP")

P("sort_by_length", "def sort_by_length(words: List[str]) -> List[str]:",
  """Sort words by length, longest first; words of the same length keep their
original order.
>>> sort_by_length(['bb', 'a', 'cc', 'ddd'])
['ddd', 'bb', 'cc', 'a']""",
  """    return sorted(words, key=len, reverse=True)
""",
  ["candidate(['bb', 'a', 'cc', 'ddd']) == ['ddd', 'bb', 'cc', 'a']",
   "candidate([]) == []",
   "candidate(['a', 'bb', 'ccc']) == ['ccc', 'bb', 'a']",
   "candidate(['x', 'y', 'z']) == ['x', 'y', 'z']",
   "candidate(['to', 'be', 'or', 'not']) == ['not', 'to', 'be', 'or']",
   "candidate(['long', 'tiny', 'a']) == ['long', 'tiny', 'a']"],
  """    return sorted(words, key=len)[::-1]
""", imports="from typing import List")

P("floor_mean", "def floor_mean(values: List[int]) -> int:",
  """Return the mean of values rounded down (towards minus infinity), exactly,
however large the integers are. values is not empty.
>>> floor_mean([1, 2, 4])
2
>>> floor_mean([-1, -2])
-2""",
  """    return sum(values) // len(values)
""",
  ["candidate([1, 2, 4]) == 2",
   "candidate([-1, -2]) == -2",
   "candidate([5]) == 5",
   "candidate([2, 4]) == 3",
   "candidate([10 ** 20 + 1, 10 ** 20 + 2]) == 10 ** 20 + 1",
   "candidate([-7, 0]) == -4",
   "candidate([2 ** 63, 2 ** 63]) == 2 ** 63"],
  """    return int(sum(values) / len(values))
""", imports="from typing import List")

P("nesting_depth", "def nesting_depth(value: Any) -> int:",
  """Return how deeply lists are nested in value: 0 for anything that is not a
list, 1 for a list holding no lists, and so on. Lists may be nested many
thousands of levels deep.
>>> nesting_depth([1, [2, [3]], []])
3""",
  """    best = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, list):
            best = max(best, depth)
            stack.extend((child, depth + 1) for child in item)
    return best
""",
  ["candidate([1, [2, [3]], []]) == 3",
   "candidate(5) == 0",
   "candidate([]) == 1",
   "candidate([[], [[]]]) == 3",
   "candidate(nest(10)) == 11",
   "candidate(nest(50000)) == 50001"],
  """    best = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, list) and item:
            best = max(best, depth)
            stack.extend((child, depth + 1) for child in item)
    return best
""", imports="from typing import Any", preamble="""def nest(n):
    value = []
    for _ in range(n):
        value = [value]
    return value""")

P("casefold_equal", "def casefold_equal(a: str, b: str) -> bool:",
  """Whether a and b are equal when case is ignored the way Unicode's case
folding does, so that 'Stra\u00dfe' equals 'STRASSE'.
>>> casefold_equal('Stra\u00dfe', 'STRASSE')
True""",
  """    return a.casefold() == b.casefold()
""",
  ["candidate('Stra\\u00dfe', 'STRASSE') is True",
   "candidate('abc', 'ABC') is True",
   "candidate('abc', 'abd') is False",
   "candidate('', '') is True",
   "candidate('\\u03a3\\u0399\\u03a3', '\\u03c3\\u03b9\\u03c2') is True",
   "candidate('\\ufb01le', 'FILE') is True"],
  """    return a.lower() == b.lower()
""")

P("center_text", "def center_text(text: str, width: int, fill: str) -> str:",
  """Pad text on both sides with the character fill to width characters.
When the padding cannot be split evenly, the extra character goes on the
right. A text already width long or longer is returned unchanged.
>>> center_text('ab', 5, '*')
'*ab**'
>>> center_text('abc', 6, '-')
'-abc--'""",
  """    pad = width - len(text)
    if pad <= 0:
        return text
    left = pad // 2
    return fill * left + text + fill * (pad - left)
""",
  ["candidate('ab', 5, '*') == '*ab**'",
   "candidate('abc', 6, '-') == '-abc--'",
   "candidate('abc', 5, '.') == '.abc.'",
   "candidate('long text', 3, '*') == 'long text'",
   "candidate('', 3, '=') == '==='",
   "candidate('a', 4, '_') == '_a__'"],
  """    return text.center(width, fill)
""")

P("eval_rpn", "def eval_rpn(tokens: List[str]) -> int:",
  """Evaluate an expression in reverse Polish notation over integers with the
operators +, -, * and /. Division truncates towards zero, as in C.
>>> eval_rpn(['2', '1', '+', '3', '*'])
9
>>> eval_rpn(['7', '-2', '/'])
-3""",
  """    stack = []
    for tok in tokens:
        if tok in ("+", "-", "*", "/"):
            b = stack.pop()
            a = stack.pop()
            if tok == "+":
                stack.append(a + b)
            elif tok == "-":
                stack.append(a - b)
            elif tok == "*":
                stack.append(a * b)
            else:
                q = abs(a) // abs(b)
                stack.append(q if (a < 0) == (b < 0) else -q)
        else:
            stack.append(int(tok))
    return stack[-1]
""",
  ["candidate(['2', '1', '+', '3', '*']) == 9",
   "candidate(['7', '-2', '/']) == -3",
   "candidate(['42']) == 42",
   "candidate(['4', '13', '5', '/', '+']) == 6",
   "candidate(['-7', '2', '/']) == -3",
   "candidate(['10', '3', '-']) == 7",
   "candidate(['99999999999999999999', '3', '/']) == 33333333333333333333"],
  """    stack = []
    for tok in tokens:
        if tok in ("+", "-", "*", "/"):
            b = stack.pop()
            a = stack.pop()
            if tok == "+":
                stack.append(a + b)
            elif tok == "-":
                stack.append(a - b)
            elif tok == "*":
                stack.append(a * b)
            else:
                stack.append(a // b)
        else:
            stack.append(int(tok))
    return stack[-1]
""", imports="from typing import List")

P("split_csv_line", "def split_csv_line(line: str) -> List[str]:",
  """Split one line of CSV into its fields, without the csv module or regular
expressions. Fields are separated by commas; a field in double quotes may
hold commas, and a doubled quote inside it stands for one quote.
>>> split_csv_line('a,"b,c",d')
['a', 'b,c', 'd']""",
  """    fields = []
    field = []
    quoted = False
    i = 0
    while i < len(line):
        ch = line[i]
        if quoted:
            if ch == '"' and i + 1 < len(line) and line[i + 1] == '"':
                field.append('"')
                i += 1
            elif ch == '"':
                quoted = False
            else:
                field.append(ch)
        elif ch == '"':
            quoted = True
        elif ch == ",":
            fields.append("".join(field))
            field = []
        else:
            field.append(ch)
        i += 1
    fields.append("".join(field))
    return fields
""",
  ["candidate('a,\"b,c\",d') == ['a', 'b,c', 'd']",
   "candidate('x,y,z') == ['x', 'y', 'z']",
   "candidate('') == ['']",
   "candidate('a,,b') == ['a', '', 'b']",
   "candidate('\"say \"\"hi\"\"\",2') == ['say \"hi\"', '2']",
   "candidate('trailing,') == ['trailing', '']",
   "candidate('\"\"') == ['']"],
  """    return line.split(",")
""", imports="from typing import List")

P("first_index", "def first_index(values: List[int], target: int) -> int:",
  """Return the index of the first occurrence of target in values, which is
sorted in ascending order, or -1 when it is absent. Use binary search.
>>> first_index([1, 2, 2, 2, 3], 2)
1""",
  """    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < len(values) and values[lo] == target else -1
""",
  ["candidate([1, 2, 2, 2, 3], 2) == 1",
   "candidate([], 1) == -1",
   "candidate([1, 3, 5], 4) == -1",
   "candidate([1, 3, 5], 5) == 2",
   "candidate([7, 7, 7, 7], 7) == 0",
   "candidate([1, 2, 3], 0) == -1",
   "candidate([0, 1, 1, 1, 1, 1, 1, 1], 1) == 1"],
  """    lo, hi = 0, len(values) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if values[mid] == target:
            return mid
        if values[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1
""", imports="from typing import List")

P("ceil_div", "def ceil_div(a: int, b: int) -> int:",
  """Return a divided by b rounded up (towards plus infinity), exactly, for
any integers however large; b is not zero.
>>> ceil_div(7, 2)
4
>>> ceil_div(-7, 2)
-3""",
  """    return -(-a // b)
""",
  ["candidate(7, 2) == 4",
   "candidate(-7, 2) == -3",
   "candidate(6, 3) == 2",
   "candidate(0, 5) == 0",
   "candidate(7, -2) == -3",
   "candidate(10 ** 30 + 1, 10 ** 15) == 10 ** 15 + 1",
   "candidate(2 ** 64 - 1, 2) == 2 ** 63"],
  """    return math.ceil(a / b)
""", imports="import math")

P("add_months", "def add_months(day: str, months: int) -> str:",
  """Add months (possibly negative) to a date written as 'YYYY-MM-DD'. When
the day does not exist in the target month, use that month's last day.
>>> add_months('2024-01-31', 1)
'2024-02-29'""",
  """    year, month, dom = (int(part) for part in day.split("-"))
    index = year * 12 + (month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    dom = min(dom, calendar.monthrange(year, month)[1])
    return f"{year:04d}-{month:02d}-{dom:02d}"
""",
  ["candidate('2024-01-31', 1) == '2024-02-29'",
   "candidate('2023-01-31', 1) == '2023-02-28'",
   "candidate('2024-05-15', 0) == '2024-05-15'",
   "candidate('2024-11-30', 3) == '2025-02-28'",
   "candidate('2024-03-31', -1) == '2024-02-29'",
   "candidate('2000-02-29', 12) == '2001-02-28'",
   "candidate('2024-01-10', -13) == '2022-12-10'"],
  """    year, month, dom = (int(part) for part in day.split("-"))
    index = year * 12 + (month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    last = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    dom = min(dom, last)
    return f"{year:04d}-{month:02d}-{dom:02d}"
""", imports="import calendar")

P("count_overlapping", "def count_overlapping(text: str, sub: str) -> int:",
  """Count the occurrences of sub in text, overlapping ones included. An empty
sub occurs 0 times.
>>> count_overlapping('aaaa', 'aa')
3""",
  """    if not sub:
        return 0
    count = 0
    start = text.find(sub)
    while start != -1:
        count += 1
        start = text.find(sub, start + 1)
    return count
""",
  ["candidate('aaaa', 'aa') == 3",
   "candidate('abc', '') == 0",
   "candidate('abcabc', 'abc') == 2",
   "candidate('', 'a') == 0",
   "candidate('abababa', 'aba') == 3",
   "candidate('xyz', 'q') == 0"],
  """    if not sub:
        return 0
    return text.count(sub)
""")

P("parse_int", "def parse_int(text: str) -> Optional[int]:",
  """Read a whole number from text without int() on unchecked input and
without regular expressions: optional spaces around it, an optional sign
(+ or -), then one or more ASCII digits 0-9. Return None for anything else.
>>> parse_int(' -42 ')
-42
>>> parse_int('4x')""",
  """    s = text.strip(" ")
    sign = 1
    if s[:1] in ("+", "-"):
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    if not s or any(ch not in "0123456789" for ch in s):
        return None
    value = 0
    for ch in s:
        value = value * 10 + (ord(ch) - ord("0"))
    return sign * value
""",
  ["candidate(' -42 ') == -42",
   "candidate('4x') is None",
   "candidate('') is None",
   "candidate('+7') == 7",
   "candidate('-') is None",
   "candidate('\\u00b2') is None",
   "candidate('007') == 7",
   "candidate('12345678901234567890') == 12345678901234567890"],
  """    s = text.strip(" ")
    sign = 1
    if s[:1] == "-":
        sign = -1
        s = s[1:]
    if not s or any(ch not in "0123456789" for ch in s):
        return None
    value = 0
    for ch in s:
        value = value * 10 + (ord(ch) - ord("0"))
    return sign * value
""", imports="from typing import Optional")
