# Round 3, the page (sourced by tests/integration/cases.sh).
#
# Tests: report/page.c
# Tests: report/doc_html.c
# Tests: report/doc_md.c
# Tests: orchestrator/cmd/ladder_end.c

# G14: question ids with < > & " ' # a space or a line end. Each epitaph in
# REPORT.html links to #q= and the id itself, percent-encoded (what the
# script decodes and looks up), not its Markdown ("a&lt;b"); REPORT.md
# writes a line end in an id as &#10;, so "line\nbreak" and "line break"
# stay two ids there too. tests/browser/page_test.py clicks each link.
case_page_epitaph_ids() {
    local d=$work/pe href
    cat >"$work/pe-q.jsonl" <<'Q'
{"id": "a<b", "question": "Tom has 3 apples and gets 2 more. How many apples?", "answer": "5"}
{"id": "x&y", "question": "A box holds 12 pears; 4 are eaten. How many pears are left?", "answer": "8"}
{"id": "q\"1", "question": "Sam buys 6 bags of 10 plums. How many plums?", "answer": "60"}
{"id": "line\nbreak", "question": "Half of 30 figs are ripe. How many figs are ripe?", "answer": "15"}
{"id": "line break", "question": "Two baskets hold 7 lemons each. How many lemons?", "answer": "14"}
{"id": "#frag", "question": "A cat has 4 legs. How many legs do 3 cats have?", "answer": "12"}
{"id": "it's a>b &amp; c", "question": "Ann reads 9 pages a day for 2 days. How many pages?", "answer": "18"}
Q
    model peref '"default": {"content": "Answer: 0"},
 "replies": [{"match": "apples", "content": "Answer: 5"}, {"match": "pears", "content": "Answer: 8"},
             {"match": "plums", "content": "Answer: 60"}, {"match": "figs", "content": "Answer: 15"},
             {"match": "lemons", "content": "Answer: 14"}, {"match": "cats", "content": "Answer: 12"},
             {"match": "pages", "content": "Answer: 17"}]'
    model pelow '"default": {"content": "Answer: 0"}, "replies": [{"match": "pages", "content": "Answer: 18"}]'
    cat >"$work/pe.json" <<JSON
{"name": "pe", "questions": "$work/pe-q.jsonl", "run_dir": "$d",
 "rungs": [{"name": "REF", "model": "$work/peref.gguf"}, {"name": "LOW", "model": "$work/pelow.gguf"}],
 "server": {"binary": "$FAKE"}, "gpus": ["0"]}
JSON
    $GT ladder "$work/pe.json" --quiet >/dev/null 2>"$work/err" || { fail "ladder: exit $? $(tail -3 "$work/err")"; return; }
    grep -qF -- '- **line&#10;break**, answer 15.' "$d/REPORT.md" || fail "REPORT.md: $(grep -F -- '- **line' "$d/REPORT.md")"
    for href in a%3Cb x%26y q%221 line%0Abreak line%20break %23frag it%27s%20a%3Eb%20%26amp%3B%20c; do
        grep -qF "<li><a href=\"#q=$href\"><strong>" "$d/REPORT.html" ||
            fail "no epitaph links to #q=$href: $(grep -o '<li><a href="[^"]*"' "$d/REPORT.html" | tr '\n' ' ')"
    done
}
area_cases="$area_cases page_epitaph_ids"
