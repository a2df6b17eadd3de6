#!/usr/bin/env python3
"""Write tests/tools/bfcl_cases.jsonl: the canned tool-call cases that
BFCL's own AST checker (tests/tools/bfcl_fixture.py) and graveyard's
toolcall library (tests/tools/bfcl_diff.py) both grade.

Each case is an item in BFCL's shape (its function docs, bare as BFCL's
data files hold them or wrapped as OpenAI tools with OpenAI's type names;
its possible answers, {"fname": {"arg": [accepted...]}}, "" marking an
argument that may be left out), a category (BFCL's: simple, multiple,
parallel, parallel_multiple, irrelevance), and a reply as an OpenAI-style
server gives it: a list of {"name", "arguments": TEXT} (TEXT exactly as
streamed, valid JSON or not) or none, and the message's content.
Deterministic: no randomness, the same file every run.

Usage: make_bfcl_cases.py [OUT]   (default tests/tools/bfcl_cases.jsonl)"""
import json
import os
import sys

OPENAI_TYPE = {"float": "number", "dict": "object"}


def schema(t):
    """A parameter's schema from a short form: "integer", ("array",
    "float"), ("dict", {props}), ("array", ("dict", {props}))."""
    if isinstance(t, str):
        return {"type": t, "description": "a %s" % t}
    kind, inner = t
    if kind == "dict":
        return {"type": "dict", "properties":
                {k: schema(v) for k, v in inner.items()}}
    return {"type": kind, "items": schema(inner)}


def to_openai(s):
    """A schema with OpenAI's type names (number, object)."""
    if isinstance(s, dict):
        out = {k: to_openai(v) for k, v in s.items()}
        if isinstance(s.get("type"), str):
            out["type"] = OPENAI_TYPE.get(s["type"], s["type"])
        return out
    return s


def fn(name, props, required, openai=False):
    doc = {"name": name, "description": "Tool %s." % name,
           "parameters": {"type": "dict",
                          "properties": {k: schema(v)
                                         for k, v in props.items()}}}
    if required is not None:  # OpenAI's schemas may leave it out
        doc["parameters"]["required"] = required
    if openai:
        return {"type": "function", "function": to_openai(doc)}
    return doc


def call(name, args):
    """One structured call; args a dict (dumped) or the raw text."""
    text = args if isinstance(args, str) else json.dumps(args)
    return {"name": name, "arguments": text}


CASES = []


def item(cid, category, docs, answers):
    shape = "parallel" if category.startswith("parallel") else "one"

    def add(label, calls=None, content=""):
        CASES.append({"id": "%s/%s" % (cid, label), "category": category,
                      "shape": shape, "docs": docs, "answers": answers,
                      "calls": calls, "content": content})
    return add


def leaks(add, name, args):
    """The leak shapes: a call written in the content, no call given."""
    body = json.dumps({"name": name, "arguments": args})
    add("leak-tag", None, "<tool_call>\n%s\n</tool_call>" % body)
    add("leak-tag-unclosed", None, "<tool_call>\n%s" % body)
    add("leak-mistral", None, "[TOOL_CALLS][%s]" % body)
    add("leak-bare-json", None, body)
    add("leak-fenced", None, "Sure:\n```json\n%s\n```" %
        json.dumps({"name": name, "parameters": args}))
    add("leak-prose-json", None, "I will call %s now: %s" % (name, body))
    add("no-call-empty", None, "")
    add("no-call-text", None, "I cannot do that without more details.")


def malformed(add, name, good):
    text = json.dumps(good)
    add("malformed-truncated", [call(name, text[:-3])])
    add("malformed-single-quotes", [call(name, text.replace('"', "'"))])
    add("malformed-trailing", [call(name, text + " thanks")])
    add("malformed-list", [call(name, "[1, 2]")])
    add("malformed-null", [call(name, "null")])
    add("malformed-empty-text", [call(name, "")])
    add("malformed-python-kwargs", [call(name, "base=10, height=5")])


def triangle():
    docs = [fn("calculate_triangle_area",
               {"base": "integer", "height": "integer", "unit": "string"},
               ["base", "height"])]
    ans = [{"calculate_triangle_area": {"base": [10], "height": [5],
                                        "unit": ["units", ""]}}]
    add = item("simple-triangle", "simple", docs, ans)
    n = "calculate_triangle_area"
    good = {"base": 10, "height": 5}
    add("right", [call(n, {"base": 10, "height": 5, "unit": "units"})])
    add("right-optional-left-out", [call(n, good)])
    add("right-unit-case", [call(n, dict(good, unit="UNITS"))])
    add("right-unit-spaces", [call(n, dict(good, unit=" un its "))])
    add("right-key-order", [call(n, {"height": 5, "base": 10})])
    add("right-whitespace", [call(n, '  {"base" : 10 ,\n "height":5}  ')])
    add("right-duplicate-key", [call(n, '{"base": 9, "height": 5, '
                                        '"base": 10}')])
    add("right-escaped", [call(n, '{"base":10,"height":5,'
                                  '"unit":"\\u0075nits"}')])
    add("right-unit-empty", [call(n, dict(good, unit=""))])
    add("value-unit", [call(n, dict(good, unit="cm"))])
    add("value-base", [call(n, {"base": 11, "height": 5})])
    add("value-negative", [call(n, {"base": -10, "height": 5})])
    add("type-float-for-int", [call(n, {"base": 10.0, "height": 5})])
    add("type-string-for-int", [call(n, {"base": "10", "height": 5})])
    add("type-bool-for-int", [call(n, {"base": True, "height": 5})])
    add("type-null", [call(n, {"base": None, "height": 5})])
    add("type-list", [call(n, {"base": [10], "height": 5})])
    add("type-unit-int", [call(n, dict(good, unit=5))])
    add("args-missing-required", [call(n, {"base": 10})])
    add("args-empty", [call(n, {})])
    add("args-unexpected", [call(n, dict(good, color="red"))])
    add("args-misnamed", [call(n, {"bases": 10, "height": 5})])
    add("args-and-type", [call(n, {"base": "ten", "height": 5,
                                   "colour": 1})])
    add("unknown-function", [call("triangle_area", good)])
    add("unknown-function-empty-name", [call("", good)])
    add("count-two-right", [call(n, good), call(n, good)])
    add("count-second-wrong", [call(n, good), call(n, {"base": 1,
                                                       "height": 1})])
    add("count-first-wrong", [call(n, {"base": 1, "height": 1}),
                              call(n, good)])
    add("count-empty-list", [], "")
    add("count-unknown-and-right", [call("area", good), call(n, good)])
    malformed(add, n, good)
    leaks(add, n, good)


def weather_doc(openai=True):
    return fn("get_weather", {"location": "string", "unit": "string",
                              "days": "integer"}, ["location"], openai)


def weather():
    ans = [{"get_weather": {"location": ["Boston, MA", "Boston"],
                            "unit": ["fahrenheit", ""], "days": [1, ""]}}]
    add = item("simple-weather", "simple", [weather_doc()], ans)
    n = "get_weather"
    for label, loc in [("right", "Boston, MA"), ("right-lower", "boston ma"),
                       ("right-upper", "BOSTON"), ("right-no-space",
                                                   "Boston,MA"),
                       ("right-dots", "B.o.s.t.o.n"),
                       ("value-state", "Boston, Massachusetts"),
                       ("value-city", "New York, NY"),
                       ("value-nbsp", "Boston,\u00a0MA"),
                       ("value-tab", "Boston,\tMA")]:
        add(label, [call(n, {"location": loc})])
    add("right-unit", [call(n, {"location": "Boston",
                                "unit": "Fahrenheit"})])
    add("value-unit", [call(n, {"location": "Boston", "unit": "celsius"})])
    add("right-days", [call(n, {"location": "Boston", "days": 1})])
    add("value-days", [call(n, {"location": "Boston", "days": 2})])
    add("type-days-float", [call(n, {"location": "Boston", "days": 1.0})])
    add("type-days-string", [call(n, {"location": "Boston", "days": "1"})])
    add("type-location-int", [call(n, {"location": 123})])
    add("type-location-list", [call(n, {"location": ["Boston"]})])
    add("type-location-null", [call(n, {"location": None})])
    add("type-location-object", [call(n, {"location": {"city": "Boston"}})])
    add("args-missing", [call(n, {"unit": "fahrenheit"})])
    add("args-unexpected", [call(n, {"location": "Boston", "lang": "en"})])
    leaks(add, n, {"location": "Boston"})
    add("leak-tag-with-call", [call(n, {"location": "Boston"})],
        "<tool_call>{}</tool_call>")


def currency():
    docs = [fn("convert_currency", {"amount": "float", "from": "string",
                                    "to": "string"}, ["amount", "from", "to"],
               True)]
    ans = [{"convert_currency": {"amount": [100.0], "from": ["USD"],
                                 "to": ["EUR", "euro"]}}]
    add = item("simple-currency", "simple", docs, ans)
    n = "convert_currency"
    base = {"amount": 100.0, "from": "USD", "to": "EUR"}
    add("right", [call(n, base)])
    add("right-int-for-float", [call(n, dict(base, amount=100))])
    add("right-exponent", [call(n, '{"amount": 1e2, "from": "USD", '
                                   '"to": "EUR"}')])
    add("right-to-word", [call(n, dict(base, to="Euro"))])
    add("right-to-dashes", [call(n, dict(base, to="e-u-r"))])
    add("right-from-lower", [call(n, dict(base, **{"from": "usd"}))])
    add("value-amount", [call(n, dict(base, amount=100.5))])
    add("value-amount-int", [call(n, dict(base, amount=101))])
    add("value-from", [call(n, dict(base, **{"from": "US Dollar"}))])
    add("value-to-symbol", [call(n, dict(base, to="\u20ac"))])
    add("type-amount-string", [call(n, dict(base, amount="100"))])
    add("type-amount-bool", [call(n, dict(base, amount=True))])
    add("type-amount-list", [call(n, dict(base, amount=[100.0]))])
    add("args-missing-to", [call(n, {"amount": 100.0, "from": "USD"})])
    add("args-extra", [call(n, dict(base, fee=0))])
    malformed(add, n, base)


def averages():
    docs = [fn("average", {"numbers": ("array", "float")}, ["numbers"])]
    ans = [{"average": {"numbers": [[1.5, 2.5, 3.0]]}}]
    add = item("simple-average", "simple", docs, ans)
    n = "average"
    add("right", [call(n, {"numbers": [1.5, 2.5, 3.0]})])
    add("type-int-in-float-list", [call(n, {"numbers": [1.5, 2.5, 3]})])
    add("value-order", [call(n, {"numbers": [2.5, 1.5, 3.0]})])
    add("value-short", [call(n, {"numbers": [1.5, 2.5]})])
    add("right-empty-list", [call(n, {"numbers": []})])
    add("type-string", [call(n, {"numbers": "1.5, 2.5, 3.0"})])
    add("type-nested", [call(n, {"numbers": [[1.5], [2.5]]})])
    add("type-strings-in-list", [call(n, {"numbers": ["1.5", "2.5",
                                                      "3.0"]})])
    ans2 = [{"average": {"numbers": [[1.0, 2.0], ""]}}]
    add = item("simple-average-optional", "simple", docs, ans2)
    add("right-ints-optional", [call(n, {"numbers": [1, 2]})])
    add("right-floats", [call(n, {"numbers": [1.0, 2.0]})])
    add("right-empty", [call(n, {"numbers": []})])
    add("right-left-out", [call(n, {})])
    add("value-other", [call(n, {"numbers": [1, 3]})])
    add("value-strings", [call(n, {"numbers": ["1", "2"]})])
    docs3 = [fn("tag_all", {"tags": ("array", "string")}, ["tags"], True)]
    ans3 = [{"tag_all": {"tags": [["Red Wine", "cheese"],
                                  ["red wine", "cheese", "bread"]]}}]
    add = item("simple-tags", "simple", docs3, ans3)
    n = "tag_all"
    add("right", [call(n, {"tags": ["Red Wine", "cheese"]})])
    add("right-normalised", [call(n, {"tags": ["red-wine", "CHEESE"]})])
    add("right-second", [call(n, {"tags": ["redwine", "cheese",
                                           "bread"]})])
    add("value-order", [call(n, {"tags": ["cheese", "red wine"]})])
    add("type-numbers", [call(n, {"tags": [1, 2]})])
    add("type-string", [call(n, {"tags": "red wine, cheese"})])


def hotel():
    docs = [fn("book_hotel", {"guest": ("dict", {"name": "string",
                                                 "vip": "boolean"}),
                              "nights": "integer"}, ["guest", "nights"],
               True)]
    ans = [{"book_hotel": {"guest": [{"name": ["Ann Lee"],
                                      "vip": [True, ""]}],
                           "nights": [3]}}]
    add = item("simple-hotel", "simple", docs, ans)
    n = "book_hotel"
    add("right", [call(n, {"guest": {"name": "ann lee"}, "nights": 3})])
    add("right-vip", [call(n, {"guest": {"name": "Ann Lee", "vip": True},
                               "nights": 3})])
    add("right-vip-one", [call(n, {"guest": {"name": "Ann Lee", "vip": 1},
                                   "nights": 3})])
    add("value-name", [call(n, {"guest": {"name": "Bob"}, "nights": 3})])
    add("value-extra-key", [call(n, {"guest": {"name": "Ann Lee",
                                               "floor": 2}, "nights": 3})])
    add("value-missing-key", [call(n, {"guest": {"vip": True},
                                       "nights": 3})])
    add("value-vip-false", [call(n, {"guest": {"name": "Ann Lee",
                                               "vip": False}, "nights": 3})])
    add("value-empty-dict", [call(n, {"guest": {}, "nights": 3})])
    add("type-guest-string", [call(n, {"guest": "Ann Lee", "nights": 3})])
    add("type-guest-list", [call(n, {"guest": ["Ann Lee"], "nights": 3})])
    add("value-nights", [call(n, {"guest": {"name": "Ann Lee"},
                                  "nights": 2})])
    add("args-missing-nights", [call(n, {"guest": {"name": "Ann Lee"}})])


def trip():
    docs = [fn("plan_trip", {"stops": ("array", ("dict", {"city": "string",
                                                          "days": "integer"})),
                             "mode": "string"}, ["stops"])]
    ans = [{"plan_trip": {"stops": [[{"city": ["Paris"], "days": [2]},
                                     {"city": ["Rome"], "days": [3]}]],
                          "mode": ["train", ""]}}]
    add = item("simple-trip", "simple", docs, ans)
    n = "plan_trip"
    stops = [{"city": "Paris", "days": 2}, {"city": "Rome", "days": 3}]
    add("right", [call(n, {"stops": stops})])
    add("right-mode", [call(n, {"stops": stops, "mode": "Train"})])
    add("right-city-case", [call(n, {"stops": [{"city": "PARIS", "days": 2},
                                               {"city": "rome",
                                                "days": 3}]})])
    add("value-order", [call(n, {"stops": stops[::-1]})])
    add("value-missing-days", [call(n, {"stops": [{"city": "Paris"},
                                                   stops[1]]})])
    add("value-extra-key", [call(n, {"stops": [dict(stops[0], hotel=1),
                                               stops[1]]})])
    add("value-days-string", [call(n, {"stops": [{"city": "Paris",
                                                  "days": "2"}, stops[1]]})])
    add("value-one-stop", [call(n, {"stops": stops[:1]})])
    add("value-empty", [call(n, {"stops": []})])
    add("type-stops-dict", [call(n, {"stops": stops[0]})])
    add("type-stops-strings", [call(n, {"stops": ["Paris", "Rome"]})])
    add("value-mode", [call(n, {"stops": stops, "mode": "plane"})])


def alarm():
    docs = [fn("set_alarm", {"time": "string", "days": ("array", "string"),
                             "repeat": "boolean"}, ["time"])]
    ans = [{"set_alarm": {"time": ["7:00 AM", "07:00"],
                          "days": [["Monday", "Tuesday"], ""],
                          "repeat": [True, ""]}}]
    add = item("simple-alarm", "simple", docs, ans)
    n = "set_alarm"
    add("right", [call(n, {"time": "7:00 am"})])
    add("right-24h", [call(n, {"time": "07:00"})])
    add("value-time", [call(n, {"time": "7:30 AM"})])
    add("value-time-colon", [call(n, {"time": "700AM"})])
    add("right-days", [call(n, {"time": "07:00",
                                "days": ["monday", "TUESDAY"]})])
    add("right-days-empty", [call(n, {"time": "07:00", "days": []})])
    add("value-days-order", [call(n, {"time": "07:00",
                                      "days": ["Tuesday", "Monday"]})])
    add("type-days-string", [call(n, {"time": "07:00", "days": "Monday"})])
    add("right-repeat", [call(n, {"time": "07:00", "repeat": True})])
    add("value-repeat", [call(n, {"time": "07:00", "repeat": False})])
    add("type-repeat-string", [call(n, {"time": "07:00", "repeat": "true"})])
    add("type-repeat-int", [call(n, {"time": "07:00", "repeat": 1})])
    add("type-time-int", [call(n, {"time": 700})])


def odd_types():
    docs = [fn("count_fruit", {"x": "integer"}, ["x"])]
    ans = [{"count_fruit": {"x": ["num_apples"]}}]
    add = item("simple-variable", "simple", docs, ans)
    add("right-variable", [call("count_fruit", {"x": "num_apples"})])
    add("value-variable-case", [call("count_fruit", {"x": "Num_Apples"})])
    add("value-int", [call("count_fruit", {"x": 5})])
    add("type-float", [call("count_fruit", {"x": 5.0})])
    docs = [fn("log_event", {"payload": "any"}, ["payload"])]
    ans = [{"log_event": {"payload": ["hello world", ""]}}]
    add = item("simple-any", "simple", docs, ans)
    add("right", [call("log_event", {"payload": "Hello World"})])
    add("type-int", [call("log_event", {"payload": 5})])
    add("value", [call("log_event", {"payload": "goodbye"})])
    add("right-left-out", [call("log_event", {})])
    docs = [fn("move_to", {"point": ("tuple", "float")}, ["point"])]
    ans = [{"move_to": {"point": [[1.0, 2.0]]}}]
    add = item("simple-tuple", "simple", docs, ans)
    add("right", [call("move_to", {"point": [1.0, 2.0]})])
    add("type-ints", [call("move_to", {"point": [1, 2]})])
    add("value", [call("move_to", {"point": [2.0, 1.0]})])
    add("type-string", [call("move_to", {"point": "1.0,2.0"})])
    docs = [fn("find_diner", {"name": "string", "city": "string"},
               ["name", "city"], True)]
    ans = [{"find_diner": {"name": ["Joe's Diner"],
                           "city": ["Z\u00fcrich", "\u041c\u043e\u0441\u043a\u0432\u0430"]}}]
    add = item("simple-strings", "simple", docs, ans)
    n = "find_diner"
    add("right", [call(n, {"name": "Joe's Diner", "city": "Z\u00fcrich"})])
    add("right-quote", [call(n, {"name": "JOE\"S DINER",
                                 "city": "Z\u00fcrich"})])
    add("value-no-quote", [call(n, {"name": "Joes Diner",
                                    "city": "Z\u00fcrich"})])
    add("right-latin1-upper", [call(n, {"name": "joe's diner",
                                        "city": "Z\u00dcRICH"})])
    add("right-cyrillic-upper", [call(n, {"name": "joe's diner",
                                          "city": "\u041c\u041e\u0421\u041a\u0412\u0410"})])
    add("value-ascii-fold", [call(n, {"name": "joe's diner",
                                      "city": "Zurich"})])
    add("right-escaped-unicode", [call(n, '{"name": "Joe\'s Diner", '
                                          '"city": "Z\\u00fcrich"}')])
    add("right-underscores", [call(n, {"name": "joe's_diner_",
                                       "city": "zürich"})])
    add("value-emoji", [call(n, {"name": "Joe's Diner \U0001F354",
                                 "city": "Z\u00fcrich"})])


def search():
    docs = [fn("web_search", {"query": "string", "limit": "integer"}, None,
               True)]
    ans = [{"web_search": {"query": ["quantum computing"],
                           "limit": [10, ""]}}]
    add = item("simple-search", "simple", docs, ans)
    n = "web_search"
    add("right", [call(n, {"query": "quantum computing"})])
    add("right-limit", [call(n, {"query": "Quantum-Computing",
                                 "limit": 10})])
    add("value-limit", [call(n, {"query": "quantum computing", "limit": 5})])
    add("type-limit", [call(n, {"query": "quantum computing",
                                "limit": "10"})])
    add("value-query", [call(n, {"query": "quantum physics"})])
    add("args-query-left-out", [call(n, {"limit": 10})])
    add("args-unexpected", [call(n, {"query": "quantum computing",
                                     "lang": "en"})])
    add("right-nested-json-text", [call(n, json.dumps(
        {"query": "quantum computing"}, indent=2))])
    malformed(add, n, {"query": "quantum computing"})
    leaks(add, n, {"query": "quantum computing"})


def multiple():
    docs = [weather_doc(),
            fn("get_time", {"timezone": "string"}, ["timezone"], True),
            fn("get_news", {"topic": "string", "count": "integer"},
               ["topic"], True)]
    ans = [{"get_time": {"timezone": ["Europe/Paris", "CET"]}}]
    add = item("multiple-time", "multiple", docs, ans)
    add("right", [call("get_time", {"timezone": "europe/paris"})])
    add("right-cet", [call("get_time", {"timezone": "CET"})])
    add("value", [call("get_time", {"timezone": "Paris"})])
    add("wrong-function", [call("get_weather", {"location": "Paris"})])
    add("wrong-function-news", [call("get_news", {"topic": "time"})])
    add("unknown-function", [call("get_clock", {"timezone": "CET"})])
    add("count-two", [call("get_weather", {"location": "Paris"}),
                      call("get_time", {"timezone": "CET"})])
    add("count-two-wrong", [call("get_news", {"topic": "x"}),
                            call("get_weather", {"location": "Paris"})])
    add("args", [call("get_time", {"tz": "CET"})])
    add("type", [call("get_time", {"timezone": 1})])
    leaks(add, "get_time", {"timezone": "CET"})
    malformed(add, "get_time", {"timezone": "CET"})
    docs = [fn("add", {"a": "integer", "b": "integer"}, ["a", "b"]),
            fn("multiply", {"a": "integer", "b": "integer"}, ["a", "b"]),
            fn("power", {"base": "integer", "exponent": "integer",
                         "mod": "integer"}, ["base", "exponent"]),
            fn("sqrt", {"x": "float"}, ["x"])]
    ans = [{"power": {"base": [2], "exponent": [10], "mod": [""]}}]
    add = item("multiple-math", "multiple", docs, ans)
    add("right", [call("power", {"base": 2, "exponent": 10})])
    add("value-mod-given", [call("power", {"base": 2, "exponent": 10,
                                           "mod": 7})])
    add("value-swapped", [call("power", {"base": 10, "exponent": 2})])
    add("wrong-function", [call("multiply", {"a": 2, "b": 10})])
    add("unknown-function", [call("pow", {"base": 2, "exponent": 10})])
    add("type", [call("power", {"base": 2.0, "exponent": 10})])
    add("args", [call("power", {"base": 2})])
    add("count-chain", [call("power", {"base": 2, "exponent": 5}),
                        call("power", {"base": 32, "exponent": 2})])
    ans = [{"sqrt": {"x": [16.0, 16]}}]
    add = item("multiple-sqrt", "multiple", docs, ans)
    add("right-int", [call("sqrt", {"x": 16})])
    add("right-float", [call("sqrt", {"x": 16.0})])
    add("value", [call("sqrt", {"x": 4})])
    add("type-string", [call("sqrt", {"x": "16"})])
    add("wrong-function", [call("power", {"base": 16, "exponent": 0})])


def parallel():
    docs = [weather_doc()]
    cities = ["Paris", "London", "Tokyo"]
    ans = [{"get_weather": {"location": [c], "unit": ["celsius", ""]}}
           for c in cities]
    add = item("parallel-weather", "parallel", docs, ans)
    n = "get_weather"

    def calls(locs, **extra):
        return [call(n, dict({"location": c}, **extra)) for c in locs]
    add("right", calls(cities))
    add("right-reversed", calls(cities[::-1]))
    add("right-rotated", calls(cities[1:] + cities[:1]))
    add("right-units", calls(cities, unit="Celsius"))
    add("right-lower", calls([c.lower() for c in cities]))
    add("count-two", calls(cities[:2]))
    add("count-one", calls(cities[:1]))
    add("count-four", calls(cities + ["Paris"]))
    add("count-four-other", calls(cities + ["Rome"]))
    add("value-duplicate", calls(["Paris", "Paris", "London"]))
    add("value-one-city", calls(["Paris", "Berlin", "Tokyo"]))
    add("value-unit", calls(cities, unit="kelvin"))
    add("type-one", calls(cities[:2]) + [call(n, {"location": 3})])
    add("args-one", calls(cities[:2]) + [call(n, {"city": "Tokyo"})])
    add("unknown-one", calls(cities[:2]) + [call("weather",
                                                 {"location": "Tokyo"})])
    add("malformed-one", calls(cities[:2]) +
        [call(n, '{"location": "Tokyo"')])
    add("malformed-two-unknown", [call("nope", {"location": "Paris"}),
                                  call(n, "{location: London}"),
                                  call(n, {"location": "Tokyo"})])
    add("one-call-list", [call(n, {"location": cities})])
    add("empty", [], "")
    leaks(add, n, {"location": "Paris"})
    ans = [{"get_weather": {"location": ["Paris", "London"]}},
           {"get_weather": {"location": ["Paris"]}}]
    add = item("parallel-greedy", "parallel", docs, ans)
    add("greedy-fails", calls(["Paris", "London"]))
    add("greedy-right", calls(["London", "Paris"]))
    add("both-paris", calls(["Paris", "Paris"]))


def parallel_multiple():
    docs = [fn("book_flight", {"from": "string", "to": "string",
                               "date": "string"}, ["from", "to", "date"]),
            fn("book_hotel", {"city": "string", "nights": "integer"},
               ["city", "nights"]),
            fn("rent_car", {"city": "string", "days": "integer"},
               ["city", "days"])]
    ans = [{"book_flight": {"from": ["SFO", "San Francisco"],
                            "to": ["JFK", "New York"],
                            "date": ["2024-05-01", "May 1, 2024"]}},
           {"book_hotel": {"city": ["New York", "NYC"], "nights": [4]}}]
    add = item("parallel-multiple-trip", "parallel_multiple", docs, ans)
    fl = call("book_flight", {"from": "SFO", "to": "JFK",
                              "date": "2024-05-01"})
    ho = call("book_hotel", {"city": "New York", "nights": 4})
    add("right", [fl, ho])
    add("right-swapped", [ho, fl])
    add("right-words", [call("book_flight", {"from": "san francisco",
                                             "to": "new york",
                                             "date": "May 1 2024"}), ho])
    add("right-date-dashes", [call("book_flight", {"from": "SFO",
                                                   "to": "JFK",
                                                   "date": "20240501"}), ho])
    add("count-flight-only", [fl])
    add("count-extra-car", [fl, ho, call("rent_car", {"city": "NYC",
                                                      "days": 4})])
    add("wrong-function-car", [fl, call("rent_car", {"city": "NYC",
                                                     "days": 4})])
    add("wrong-function-two-flights", [fl, fl])
    add("value-nights", [fl, call("book_hotel", {"city": "NYC",
                                                 "nights": 3})])
    add("value-date", [call("book_flight", {"from": "SFO", "to": "JFK",
                                            "date": "2024-05-02"}), ho])
    add("type-nights", [fl, call("book_hotel", {"city": "NYC",
                                                "nights": "4"})])
    add("args-flight", [call("book_flight", {"from": "SFO", "to": "JFK"}),
                        ho])
    add("unknown", [fl, call("book_room", {"city": "NYC", "nights": 4})])
    add("malformed", [fl, call("book_hotel", '{"city": "NYC", nights: 4}')])
    add("empty", [], "")
    leaks(add, "book_flight", {"from": "SFO", "to": "JFK",
                               "date": "2024-05-01"})


def irrelevance():
    sets = [("weather", [weather_doc()], "get_weather",
             {"location": "Paris"}),
            ("math", [fn("add", {"a": "integer", "b": "integer"},
                         ["a", "b"])], "add", {"a": 1, "b": 2}),
            ("trip", [fn("book_flight", {"from": "string", "to": "string"},
                         ["from", "to"], True),
                      fn("book_hotel", {"city": "string"}, ["city"], True)],
             "book_hotel", {"city": "Rome"})]
    for name, docs, fname, args in sets:
        add = item("irrelevance-" + name, "irrelevance", docs, [])
        add("right-text", None, "I can't help with that.")
        add("right-empty", None, "")
        add("right-leak-in-content", None, "<tool_call>%s</tool_call>" %
            json.dumps({"name": fname, "arguments": args}))
        add("call", [call(fname, args)])
        add("call-empty-args", [call(fname, {})])
        add("call-unknown", [call("answer_question", {"q": "why"})])
        add("call-wrong-args", [call(fname, {"zzz": 1})])
        add("calls-two", [call(fname, args), call(fname, args)])
    add = item("irrelevance-weather", "irrelevance", sets[0][1], [])
    add("malformed-call", [call("get_weather", '{"location": "Par')])
    add("not-an-object", [call("get_weather", "[]")])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "bfcl_cases.jsonl")
    for make in (triangle, weather, currency, averages, hotel, trip, alarm,
                 odd_types, search, multiple, parallel, parallel_multiple,
                 irrelevance):
        make()
    ids = [c["id"] for c in CASES]
    if len(set(ids)) != len(ids):
        sys.exit("make_bfcl_cases: duplicate ids")
    with open(out, "w", encoding="utf-8") as f:
        for c in CASES:
            f.write(json.dumps(c, ensure_ascii=False, sort_keys=True) + "\n")
    print("make_bfcl_cases: %d cases in '%s'" % (len(CASES), out))


if __name__ == "__main__":
    main()
