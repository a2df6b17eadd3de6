#!/usr/bin/env python3
"""make_items.py - graveyard's built-in tool-call items (data/toolcalls).

Writes data/toolcalls/items.jsonl (the items, graveyard's tool-item shape,
docs/toolcalls.md) and tests/data/toolcalls/replies.jsonl (for each item
one canonical right reply and wrong replies, each with the bucket the
checker must give it; tests/unit/test_input_toolset.c grades them all).
Everything here was written by hand for this project; nothing is taken
from BFCL but its categories and its possible-answers conventions.

Run from the repository root: python3 data/toolcalls/make_items.py
The output is deterministic; commit both files after a change.

  --bfcl-cases FILE  also writes every reply as a case of
      tests/tools/bfcl_fixture.py, to hold BFCL's own checker to the set:
      python3 tests/tools/bfcl_fixture.py GORILLA --cases FILE --out V.json
      (each case's id ends in the bucket the reply must get)
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fn(name, description, props, required):
    return {"type": "function",
            "function": {"name": name, "description": description,
                         "parameters": {"type": "object", "properties": props,
                                        "required": required}}}


S = {"type": "string"}
WEATHER = fn("get_weather", "The current weather in a city.", {
    "city": {"type": "string", "description": "The city, e.g. 'Paris'."},
    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"],
             "description": "The temperature unit; celsius when not given."},
}, ["city"])
FORECAST = fn("get_forecast", "The weather forecast for a city, for the next days.", {
    "city": {"type": "string", "description": "The city."},
    "days": {"type": "integer", "description": "How many days ahead, 1 to 14."},
    "include_hourly": {"type": "boolean", "description": "Whether to add hourly detail; false when not given."},
}, ["city", "days"])
CONVERT = fn("convert_units", "Convert a quantity from one unit to another.", {
    "value": {"type": "number", "description": "The quantity to convert."},
    "from_unit": {"type": "string", "description": "The unit it is in, e.g. 'km', 'lb', 'F'."},
    "to_unit": {"type": "string", "description": "The unit wanted."},
}, ["value", "from_unit", "to_unit"])
EVENT = fn("create_event", "Add an event to the user's calendar.", {
    "title": {"type": "string", "description": "The event's title."},
    "date": {"type": "string", "description": "The day, as YYYY-MM-DD."},
    "start_time": {"type": "string", "description": "The start, as HH:MM (24-hour)."},
    "duration_minutes": {"type": "integer", "description": "How long it lasts; 60 when not given."},
    "attendees": {"type": "array", "items": {"type": "string"},
                  "description": "Email addresses of the people invited."},
}, ["title", "date", "start_time"])
LIST_EVENTS = fn("list_events", "List the events in the user's calendar on one day.", {
    "date": {"type": "string", "description": "The day, as YYYY-MM-DD."},
}, ["date"])
SEARCH = fn("search_files", "Search the user's files by words in their names or contents.", {
    "query": {"type": "string", "description": "The words to look for."},
    "extensions": {"type": "array", "items": {"type": "string"},
                   "description": "Only files with these extensions, without the dot, e.g. ['pdf']."},
    "max_results": {"type": "integer", "description": "At most this many results; 20 when not given."},
    "include_hidden": {"type": "boolean", "description": "Whether hidden files count; false when not given."},
}, ["query"])
TIMER = fn("set_timer", "Start a countdown timer.", {
    "minutes": {"type": "integer", "description": "Its length in whole minutes."},
    "label": {"type": "string", "description": "A name for the timer."},
}, ["minutes"])
CURRENCY = fn("convert_currency", "Convert an amount of money between currencies at today's rate.", {
    "amount": {"type": "number", "description": "The amount."},
    "from_currency": {"type": "string", "description": "ISO 4217 code, e.g. 'USD'."},
    "to_currency": {"type": "string", "description": "ISO 4217 code, e.g. 'EUR'."},
}, ["amount", "from_currency", "to_currency"])
EMAIL = fn("send_email", "Send an email from the user's account.", {
    "to": {"type": "array", "items": {"type": "string"}, "description": "The recipients' addresses."},
    "subject": {"type": "string", "description": "The subject line."},
    "body": {"type": "string", "description": "The message."},
    "urgent": {"type": "boolean", "description": "Whether to mark it urgent; false when not given."},
}, ["to", "subject", "body"])
STOCK = fn("get_stock_price", "The latest price of a listed company's share.", {
    "ticker": {"type": "string", "description": "The ticker symbol, e.g. 'AAPL'."},
}, ["ticker"])

ITEMS = []


def first_values(possible):
    """Each possible call with its first accepted value (an argument whose
    first accepted value is "" left out)."""
    reply = []
    for call in possible:
        (f, args), = call.items()
        reply.append({f: {k: v[0] for k, v in args.items() if v[0] != ""}})
    return reply


def item(cat, name, question, tools, possible, reply=None):
    """One item; reply, the canonical right calls as {"fname": {args}},
    first_values(possible) when not given."""
    n = sum(1 for i in ITEMS if i["id"].startswith(cat + "-" + name + "-")) + 1
    if reply is None:
        reply = first_values(possible)
    ITEMS.append({"id": "%s-%s-%d" % (cat, name, n), "category": cat,
                  "question": question, "tools": tools, "tool_choice": "auto",
                  "possible": possible, "_reply": reply})


# simple: one function offered, one call
item("simple", "weather", "What's the weather like in Lisbon right now?", [WEATHER],
     [{"get_weather": {"city": ["Lisbon", "Lisboa"], "unit": ["", "celsius"]}}])
item("simple", "weather", "Is it cold in Chicago today? Give me the temperature in Fahrenheit.", [WEATHER],
     [{"get_weather": {"city": ["Chicago", "Chicago, IL"], "unit": ["fahrenheit", "F"]}}])
item("simple", "weather", "I'm flying to Tokyo tomorrow; what's the weather there now, in celsius?", [WEATHER],
     [{"get_weather": {"city": ["Tokyo"], "unit": ["celsius", "C", ""]}}],
     [{"get_weather": {"city": "tokyo", "unit": "Celsius"}}])
item("simple", "forecast", "Give me the 5-day forecast for Oslo with hourly detail.", [FORECAST],
     [{"get_forecast": {"city": ["Oslo"], "days": [5], "include_hourly": [True]}}])
item("simple", "convert", "How many kilometres is 26.2 miles?", [CONVERT],
     [{"convert_units": {"value": [26.2], "from_unit": ["mi", "mile", "miles"], "to_unit": ["km", "kilometer", "kilometers", "kilometre", "kilometres"]}}])
item("simple", "convert", "Convert 350 degrees Fahrenheit to Celsius.", [CONVERT],
     [{"convert_units": {"value": [350.0], "from_unit": ["F", "fahrenheit", "°F"], "to_unit": ["C", "celsius", "°C"]}}],
     [{"convert_units": {"value": 350, "from_unit": "F", "to_unit": "C"}}])
item("simple", "convert", "My suitcase weighs 23 kg. What is that in pounds?", [CONVERT],
     [{"convert_units": {"value": [23.0], "from_unit": ["kg", "kilogram", "kilograms"], "to_unit": ["lb", "lbs", "pound", "pounds"]}}],
     [{"convert_units": {"value": 23, "from_unit": "kilograms", "to_unit": "lb"}}])
item("simple", "event", "Put 'Dentist' in my calendar on 2026-03-14 at 09:30 for 45 minutes.", [EVENT],
     [{"create_event": {"title": ["Dentist"], "date": ["2026-03-14"], "start_time": ["09:30"], "duration_minutes": [45], "attendees": [""]}}])
item("simple", "event", "Schedule a 'Project kickoff' on 2026-04-02 at 14:00 and invite ana@example.com and raj@example.com.", [EVENT],
     [{"create_event": {"title": ["Project kickoff"], "date": ["2026-04-02"], "start_time": ["14:00"], "duration_minutes": ["", 60], "attendees": [["ana@example.com", "raj@example.com"], ["raj@example.com", "ana@example.com"]]}}])
item("simple", "files", "Find my PDF files about the tax return.", [SEARCH],
     [{"search_files": {"query": ["tax return", "tax"], "extensions": [["pdf"]], "max_results": [""], "include_hidden": ["", False]}}])
item("simple", "files", "Search everything, hidden files included, for 'id_rsa' and show at most 5 results.", [SEARCH],
     [{"search_files": {"query": ["id_rsa"], "extensions": [""], "max_results": [5], "include_hidden": [True]}}])
item("simple", "timer", "Set a 12 minute timer for the pasta.", [TIMER],
     [{"set_timer": {"minutes": [12], "label": ["pasta", ""]}}])
item("simple", "currency", "How much is 250 US dollars in euros?", [CURRENCY],
     [{"convert_currency": {"amount": [250.0], "from_currency": ["USD"], "to_currency": ["EUR"]}}],
     [{"convert_currency": {"amount": 250, "from_currency": "USD", "to_currency": "EUR"}}])
item("simple", "email", "Email bo@example.com with the subject 'Running late' saying: I'll be 10 minutes late.", [EMAIL],
     [{"send_email": {"to": [["bo@example.com"]], "subject": ["Running late"], "body": ["I'll be 10 minutes late.", "I'll be 10 minutes late"], "urgent": ["", False]}}])

# multiple: 2 to 4 functions offered, one call
item("multiple", "weather", "What's the temperature in Cairo at the moment?", [FORECAST, WEATHER],
     [{"get_weather": {"city": ["Cairo"], "unit": ["", "celsius"]}}])
item("multiple", "forecast", "Will it rain in Dublin over the next 3 days?", [WEATHER, FORECAST, TIMER],
     [{"get_forecast": {"city": ["Dublin"], "days": [3], "include_hourly": ["", False]}}])
item("multiple", "convert", "Convert 5 feet to metres.", [CURRENCY, CONVERT],
     [{"convert_units": {"value": [5.0], "from_unit": ["ft", "feet", "foot"], "to_unit": ["m", "meter", "meters", "metre", "metres"]}}],
     [{"convert_units": {"value": 5, "from_unit": "ft", "to_unit": "m"}}])
item("multiple", "currency", "What are 1000 Japanese yen in British pounds?", [CONVERT, CURRENCY, STOCK],
     [{"convert_currency": {"amount": [1000.0], "from_currency": ["JPY"], "to_currency": ["GBP"]}}])
item("multiple", "events", "What do I have on my calendar on 2026-05-01?", [EVENT, LIST_EVENTS],
     [{"list_events": {"date": ["2026-05-01"]}}])
item("multiple", "event", "Book 'Gym' on 2026-05-02 at 07:00 for 90 minutes.", [LIST_EVENTS, EVENT, TIMER, EMAIL],
     [{"create_event": {"title": ["Gym"], "date": ["2026-05-02"], "start_time": ["07:00"], "duration_minutes": [90], "attendees": [""]}}])
item("multiple", "files", "Look for spreadsheets (xlsx or csv) named budget.", [EMAIL, SEARCH],
     [{"search_files": {"query": ["budget"], "extensions": [["xlsx", "csv"], ["csv", "xlsx"]], "max_results": [""], "include_hidden": ["", False]}}])
item("multiple", "timer", "Start a timer called 'tea' for 4 minutes.", [TIMER, EVENT],
     [{"set_timer": {"minutes": [4], "label": ["tea"]}}])
item("multiple", "email", "Send an urgent email to ops@example.com, subject 'Disk full', body 'Server db1 is out of disk.'", [SEARCH, EMAIL, TIMER],
     [{"send_email": {"to": [["ops@example.com"]], "subject": ["Disk full"], "body": ["Server db1 is out of disk.", "Server db1 is out of disk"], "urgent": [True]}}])
item("multiple", "stock", "What is Apple's share price right now?", [CURRENCY, STOCK],
     [{"get_stock_price": {"ticker": ["AAPL"]}}])

# parallel: one function, 2 or 3 calls
item("parallel", "weather", "What's the weather in Madrid and in Rome?", [WEATHER],
     [{"get_weather": {"city": ["Madrid"], "unit": ["", "celsius"]}},
      {"get_weather": {"city": ["Rome", "Roma"], "unit": ["", "celsius"]}}])
item("parallel", "weather", "Tell me the current weather in Denver, Austin and Boston in fahrenheit.", [WEATHER],
     [{"get_weather": {"city": ["Denver"], "unit": ["fahrenheit"]}},
      {"get_weather": {"city": ["Austin"], "unit": ["fahrenheit"]}},
      {"get_weather": {"city": ["Boston"], "unit": ["fahrenheit"]}}])
item("parallel", "convert", "Convert 10 km to miles and 3 litres to gallons.", [CONVERT],
     [{"convert_units": {"value": [10.0], "from_unit": ["km", "kilometer", "kilometers", "kilometre", "kilometres"], "to_unit": ["mi", "mile", "miles"]}},
      {"convert_units": {"value": [3.0], "from_unit": ["l", "liter", "liters", "litre", "litres"], "to_unit": ["gal", "gallon", "gallons"]}}],
     [{"convert_units": {"value": 3, "from_unit": "litres", "to_unit": "gallons"}},
      {"convert_units": {"value": 10, "from_unit": "km", "to_unit": "mi"}}])
item("parallel", "timer", "Set two timers: 3 minutes for the eggs and 20 minutes for the bread.", [TIMER],
     [{"set_timer": {"minutes": [3], "label": ["eggs", ""]}},
      {"set_timer": {"minutes": [20], "label": ["bread", ""]}}])
item("parallel", "currency", "Convert 50 CHF to USD and 50 CHF to EUR.", [CURRENCY],
     [{"convert_currency": {"amount": [50.0], "from_currency": ["CHF"], "to_currency": ["USD"]}},
      {"convert_currency": {"amount": [50.0], "from_currency": ["CHF"], "to_currency": ["EUR"]}}])
item("parallel", "events", "What's on my calendar on 2026-06-01 and on 2026-06-02?", [LIST_EVENTS],
     [{"list_events": {"date": ["2026-06-01"]}}, {"list_events": {"date": ["2026-06-02"]}}])
item("parallel", "stock", "Get me the share prices of Microsoft, Nvidia and Tesla.", [STOCK],
     [{"get_stock_price": {"ticker": ["MSFT"]}}, {"get_stock_price": {"ticker": ["NVDA"]}},
      {"get_stock_price": {"ticker": ["TSLA"]}}])
item("parallel", "forecast", "Forecast for the next 2 days in Nairobi and the next 7 days in Lima.", [FORECAST],
     [{"get_forecast": {"city": ["Nairobi"], "days": [2], "include_hourly": ["", False]}},
      {"get_forecast": {"city": ["Lima"], "days": [7], "include_hourly": ["", False]}}])

# parallel_multiple: several functions, several calls
item("parallel_multiple", "trip", "I land in Berlin soon: what's the weather there, and how much is 300 USD in EUR?", [WEATHER, CURRENCY, TIMER],
     [{"get_weather": {"city": ["Berlin"], "unit": ["", "celsius"]}},
      {"convert_currency": {"amount": [300.0], "from_currency": ["USD"], "to_currency": ["EUR"]}}])
item("parallel_multiple", "meeting", "Create 'Review' on 2026-07-10 at 10:00 and email lee@example.com with subject 'Review' and body 'See you at 10.'", [EVENT, EMAIL, LIST_EVENTS],
     [{"create_event": {"title": ["Review"], "date": ["2026-07-10"], "start_time": ["10:00"], "duration_minutes": ["", 60], "attendees": ["", ["lee@example.com"]]}},
      {"send_email": {"to": [["lee@example.com"]], "subject": ["Review"], "body": ["See you at 10.", "See you at 10"], "urgent": ["", False]}}])
item("parallel_multiple", "kitchen", "Set a 25 minute timer and convert 200 grams to ounces.", [TIMER, CONVERT],
     [{"set_timer": {"minutes": [25], "label": [""]}},
      {"convert_units": {"value": [200.0], "from_unit": ["g", "gram", "grams"], "to_unit": ["oz", "ounce", "ounces"]}}],
     [{"convert_units": {"value": 200, "from_unit": "g", "to_unit": "oz"}}, {"set_timer": {"minutes": 25}}])
item("parallel_multiple", "desk", "Find my files named 'invoice' and tell me the weather in Seoul.", [SEARCH, WEATHER, EMAIL],
     [{"search_files": {"query": ["invoice"], "extensions": [""], "max_results": [""], "include_hidden": ["", False]}},
      {"get_weather": {"city": ["Seoul"], "unit": ["", "celsius"]}}])
item("parallel_multiple", "markets", "What's the price of IBM stock, and what's 1 GBP in USD and in JPY?", [STOCK, CURRENCY],
     [{"get_stock_price": {"ticker": ["IBM"]}},
      {"convert_currency": {"amount": [1.0], "from_currency": ["GBP"], "to_currency": ["USD"]}},
      {"convert_currency": {"amount": [1.0], "from_currency": ["GBP"], "to_currency": ["JPY"]}}],
     [{"get_stock_price": {"ticker": "IBM"}},
      {"convert_currency": {"amount": 1, "from_currency": "GBP", "to_currency": "USD"}},
      {"convert_currency": {"amount": 1, "from_currency": "GBP", "to_currency": "JPY"}}])
item("parallel_multiple", "morning", "Forecast the next 3 days in Paris, set a 10 minute timer, and list my events on 2026-08-03.", [FORECAST, TIMER, LIST_EVENTS, EMAIL],
     [{"get_forecast": {"city": ["Paris"], "days": [3], "include_hourly": ["", False]}},
      {"set_timer": {"minutes": [10], "label": [""]}},
      {"list_events": {"date": ["2026-08-03"]}}])

# irrelevance: tools offered that do not fit; no call is right
item("irrelevance", "joke", "Tell me a joke about penguins.", [WEATHER], [])
item("irrelevance", "capital", "What is the capital of Australia?", [TIMER, CURRENCY], [])
item("irrelevance", "math", "What is 17 times 23?", [CONVERT], [])
item("irrelevance", "poem", "Write a two-line poem about the sea.", [EMAIL, SEARCH], [])
item("irrelevance", "history", "Who painted the Mona Lisa?", [STOCK], [])
item("irrelevance", "advice", "Should I learn Rust or Go first?", [EVENT, LIST_EVENTS], [])


def calls_of(reply):
    return [{"name": f, "arguments": json.dumps(a)}
            for call in reply for f, a in call.items()]


def wrongs(it):
    """Wrong replies for item it, each with the bucket it must get."""
    reply, out = it["_reply"], []
    tools = [t["function"] for t in it["tools"]]
    if not it["possible"]:
        f = tools[0]
        args = {k: (1 if v.get("type") == "integer" else 1.5 if v.get("type") == "number"
                    else ["x"] if v.get("type") == "array" else True if v.get("type") == "boolean"
                    else "x") for k, v in f["parameters"]["properties"].items()
                if k in f["parameters"]["required"]}
        out.append(("call_not_expected", [{"name": f["name"], "arguments": json.dumps(args)}], None))
        # (a call leaked as text is no call: right here, as in BFCL)
        out.append(("unknown_function", [{"name": "search_web", "arguments": '{"query": "x"}'}], None))
        out.append(("malformed_call", [{"name": f["name"], "arguments": json.dumps(args)[:-1]}], None))
        return out
    first = reply[0]
    (fname, args), = first.items()
    out.append(("no_call", None, "I can't do that right now."))
    out.append(("leaked_call", None, '<tool_call>{"name": "%s", "arguments": %s}</tool_call>'
                % (fname, json.dumps(args))))
    out.append(("malformed_call", [{"name": fname, "arguments": json.dumps(args)[:-1]}] +
                calls_of(reply[1:]), None))
    out.append(("unknown_function", [{"name": fname + "_v2", "arguments": json.dumps(args)}] +
                calls_of(reply[1:]), None))
    doc = next(t for t in tools if t["name"] == fname)
    props, req = doc["parameters"]["properties"], doc["parameters"]["required"]
    # a required argument left out
    a2 = dict(args)
    del a2[req[0]]
    out.append(("wrong_arguments", [{"name": fname, "arguments": json.dumps(a2)}] + calls_of(reply[1:]), None))
    # an argument of the wrong type: a number or boolean as text, text as a number
    k = next(k for k in args)
    t = props[k]["type"]
    bad = {"integer": str(args[k]), "number": str(args[k]), "boolean": "yes",
           "string": 7, "array": "x"}[t]
    a3 = dict(args, **{k: bad})
    out.append(("wrong_type", [{"name": fname, "arguments": json.dumps(a3)}] + calls_of(reply[1:]), None))
    # a value not accepted
    v = args[k]
    wrongv = (v + 1000 if t in ("integer", "number") else not v if t == "boolean"
              else "Atlantis" if t == "string" else ["nothing@example.org"])
    a4 = dict(args, **{k: wrongv})
    out.append(("wrong_value", [{"name": fname, "arguments": json.dumps(a4)}] + calls_of(reply[1:]), None))
    others = [t for t in tools if t["name"] != fname]
    if others and len(reply) == 1:
        o = others[0]
        oargs = {kk: vv for kk, vv in args.items() if kk in o["parameters"]["properties"]}
        out.append(("wrong_function", [{"name": o["name"], "arguments": json.dumps(oargs)}], None))
    if len(reply) > 1:
        # the call of the last possible answer left out (the checker
        # matches the answers in order: an earlier one left out would
        # meet another's call and be that call's wrong value)
        out.append(("wrong_count", calls_of(first_values(it["possible"])[:-1]), None))
    else:
        out.append(("wrong_count", calls_of(reply + reply), None))
    return out


def main():
    os.makedirs(os.path.join(ROOT, "tests/data/toolcalls"), exist_ok=True)
    with open(os.path.join(ROOT, "data/toolcalls/items.jsonl"), "w") as f:
        for it in ITEMS:
            f.write(json.dumps({k: v for k, v in it.items() if k != "_reply"},
                               ensure_ascii=False) + "\n")
    with open(os.path.join(ROOT, "tests/data/toolcalls/replies.jsonl"), "w") as f:
        for it in ITEMS:
            right = calls_of(it["_reply"]) if it["possible"] else None
            content = None if it["possible"] else "I can't help with that using these tools."
            f.write(json.dumps({"id": it["id"], "bucket": "right", "calls": right,
                                "content": content}, ensure_ascii=False) + "\n")
            for bucket, calls, text in wrongs(it):
                f.write(json.dumps({"id": it["id"], "bucket": bucket, "calls": calls,
                                    "content": text}, ensure_ascii=False) + "\n")
    print("%d items" % len(ITEMS))
    if len(sys.argv) == 3 and sys.argv[1] == "--bfcl-cases":
        bfcl_cases(sys.argv[2])


def bfcl_cases(path):
    """The replies as tests/tools/bfcl_cases.jsonl's cases."""
    items = {it["id"]: it for it in ITEMS}
    n = 0
    with open(os.path.join(ROOT, "tests/data/toolcalls/replies.jsonl")) as f, \
            open(path, "w") as out:
        for line in f:
            r = json.loads(line)
            it = items[r["id"]]
            out.write(json.dumps({
                "id": "%s/%d/%s" % (r["id"], n, r["bucket"]),
                "category": it["category"],
                "shape": "parallel" if it["category"].startswith("parallel") else "one",
                "docs": [t["function"] for t in it["tools"]],
                "answers": it["possible"], "calls": r["calls"],
                "content": r["content"] or ""}, sort_keys=True) + "\n")
            n += 1


if __name__ == "__main__":
    main()
