/*
 * test_run_request.c - what a rung asks of its server, packed once
 * (orchestrator/run/request.h): the request body as sent, byte for byte, and
 * the manifest's record of the same settings, which follows each of them.
 *
 * Tests: orchestrator/run/request.c
 * Tests: orchestrator/input/taskfile.c
 * Tests: grader/task_builtin.c
 */
#include "helpers.h"

#include "../../orchestrator/run/request.h"
#include "../../orchestrator/input/codeitem.h"
#include "../../orchestrator/input/taskfile.h"

static struct grader_task *task(const char *name)
{
    char msg[512];
    struct grader_task *t = taskfile_load(name, msg, sizeof(msg));

    if (t == NULL)
        fail_msg("%s", msg);
    return t;
}

static char *dump(json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT);

    assert_non_null(s);
    json_decref(o);
    return s;
}

/* The study's request, and its record. */
static void test_default(void **state)
{
    struct grader_task *t = task("answer-line");
    struct question q = {"q1", "What is 2+2?", "4",  NULL, 0,   1, -1,
                         -1,   NULL,           NULL, NULL, NULL};
    struct run_opts o;
    char *body, *rec;

    (void)state;
    run_opts_defaults(&o, 0);
    o.task = t;
    o.prompt = "Q: {question}";
    body = request_body(&o, &q);
    assert_string_equal(
        body, "{\"messages\":[{\"role\":\"user\",\"content\":\"Q: What is "
              "2+2?\"}],\"stream\":true,\"temperature\":0,\"seed\":0,"
              "\"cache_prompt\":false,\"max_tokens\":1024,"
              "\"chat_template_kwargs\":{\"enable_thinking\":false}}");
    rec = dump(request_settings(&o));
    assert_string_equal(rec, "{\"temperature\":0,\"seed\":0,\"cache_prompt\":"
                             "false,\"max_tokens\":1024,\"enable_thinking\":"
                             "false}");
    free(body);
    free(rec);
    grader_task_free(t);
}

/* Thinking, a task's stops, a config's extra (its stop wins), several in
 * flight and loops aborted: each in the body and in the record. */
static void test_settings_follow(void **state)
{
    struct grader_task *t = task("lm-eval-gsm8k");
    struct question q = {"q1", "Sum?", "4",  NULL, 0,    1,
                         -1,   -1,     NULL, NULL, NULL, NULL};
    json_t *extra = json_pack("{s:i,s:[s]}", "top_k", 1, "stop", "END");
    struct run_opts o;
    char *body, *rec;

    (void)state;
    run_opts_defaults(&o, 1);
    o.task = t;
    o.prompt = "{question}";
    o.request = extra;
    o.parallel = 4;
    o.abort_loops = 1;
    body = request_body(&o, &q);
    assert_string_equal(
        body, "{\"messages\":[{\"role\":\"user\",\"content\":\"Sum?\"}],"
              "\"stream\":true,\"temperature\":0,\"seed\":0,"
              "\"cache_prompt\":false,\"max_tokens\":4096,"
              "\"chat_template_kwargs\":{\"enable_thinking\":true},"
              "\"stop\":[\"END\"],\"top_k\":1}");
    rec = dump(request_settings(&o));
    assert_string_equal(
        rec, "{\"temperature\":0,\"seed\":0,\"cache_prompt\":false,"
             "\"max_tokens\":4096,\"enable_thinking\":true,\"extra\":"
             "{\"top_k\":1,\"stop\":[\"END\"]},\"in_flight\":4,"
             "\"abort_loops\":true}");
    free(body);
    free(rec);
    json_decref(extra);
    grader_task_free(t);
}

/* The task's stop strings when no extra overrides them. */
static void test_task_stops(void **state)
{
    struct grader_task *t = task("lm-eval-gsm8k");
    struct question q = {"q1", "Sum?", "4",  NULL, 0,    1,
                         -1,   -1,     NULL, NULL, NULL, NULL};
    struct run_opts o;
    char *body;

    (void)state;
    run_opts_defaults(&o, 0);
    o.task = t;
    body = request_body(&o, &q);
    assert_non_null(strstr(body, "\"stop\":[\"Question:\""));
    free(body);
    grader_task_free(t);
}

/* A tool item's tools and tool_choice go into the body as the question
 * file gave them, after a config's extra (the item's own win); an item
 * without them sends neither. */
static void test_tools(void **state)
{
    struct grader_task *t = task("answer-line");
    char tools[] = "[{\"type\":\"function\",\"function\":{\"name\":\"f\","
                   "\"parameters\":{\"type\":\"object\",\"properties\":"
                   "{\"z\":{\"type\":\"string\"},\"a\":{}}}}}]";
    char choice[] = "\"required\"";
    struct question q = {"q1", "Call f", "[]", NULL,  0,      1,
                         -1,   -1,       NULL, tools, choice, NULL};
    struct run_opts o;
    json_t *extra = json_pack("{s:s}", "tools", "not these");
    char *body;

    (void)state;
    run_opts_defaults(&o, 0);
    o.task = t;
    o.prompt = "{question}";
    o.request = extra;
    body = request_body(&o, &q);
    assert_string_equal(
        body, "{\"messages\":[{\"role\":\"user\",\"content\":\"Call f\"}],"
              "\"stream\":true,\"temperature\":0,\"seed\":0,"
              "\"cache_prompt\":false,\"max_tokens\":1024,"
              "\"chat_template_kwargs\":{\"enable_thinking\":false},"
              "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":"
              "\"f\",\"parameters\":{\"type\":\"object\",\"properties\":"
              "{\"z\":{\"type\":\"string\"},\"a\":{}}}}}],"
              "\"tool_choice\":\"required\",\"parallel_tool_calls\":true}");
    free(body);
    q.tool_choice = NULL;
    q.tools = NULL;
    o.request = NULL;
    body = request_body(&o, &q);
    assert_null(strstr(body, "tool"));
    free(body);
    json_decref(extra);
    grader_task_free(t);
}

/* A tool item asks for parallel calls ("parallel_tool_calls": true,
 * OpenAI's default, which BFCL's parallel items assume): both lineages
 * default to off (upstream: the template's caps, false for Llama 3.1's;
 * the ik fork: its --parallel-tool-calls flag) and then stream one call
 * at most (seen: 1 call without it, 2 and 3 with it, on a135ec0ba and
 * 8337e4cd). A config's extra that says otherwise wins; an item without
 * tools sends none. */
static void test_tools_parallel(void **state)
{
    struct grader_task *t = task("answer-line");
    char tools[] = "[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]";
    struct question q = {"q1", "Call f", "[]", NULL,  0,    1,
                         -1,   -1,       NULL, tools, NULL, NULL};
    struct run_opts o;
    json_t *extra = json_pack("{s:b}", "parallel_tool_calls", 0);
    char *body;

    (void)state;
    run_opts_defaults(&o, 0);
    o.task = t;
    o.prompt = "{question}";
    body = request_body(&o, &q);
    assert_non_null(strstr(body, ",\"parallel_tool_calls\":true"));
    free(body);
    o.request = extra;
    body = request_body(&o, &q);
    assert_non_null(strstr(body, "\"parallel_tool_calls\":false"));
    assert_null(strstr(body, "\"parallel_tool_calls\":true"));
    free(body);
    q.tools = NULL;
    o.request = NULL;
    body = request_body(&o, &q);
    assert_null(strstr(body, "parallel_tool_calls"));
    free(body);
    json_decref(extra);
    grader_task_free(t);
}

/* A completions task (code-completion): POST /v1/completions with the
 * code item's HumanEval prompt as it is (not the chat task's fenced
 * text) as "prompt", the same greedy settings, the Codex paper's stops,
 * no chat template kwargs; a config's extra as for chat; and the record
 * says the endpoint. */
static void test_completion(void **state)
{
    struct grader_task *t = task("code-completion");
    struct codeitem it = {
        "def f(x):\n    \"\"\"One more.\"\"\"\n", "f", NULL, NULL, 0, 0, NULL};
    struct question q = {"g/1",  "```python\ndef f(x):\n```",
                         "ab12", NULL,
                         0,      1,
                         -1,     -1,
                         NULL,   NULL,
                         NULL,   &it};
    json_t *extra = json_pack("{s:i}", "top_k", 1);
    struct run_opts o;
    char *body, *rec;

    (void)state;
    run_opts_defaults(&o, 0);
    o.task = t;
    o.max_tokens = grader_task_max_tokens(t);
    o.request = extra;
    assert_string_equal(request_path(&o), "/v1/completions");
    body = request_body(&o, &q);
    assert_string_equal(
        body,
        "{\"prompt\":\"def f(x):\\n    \\\"\\\"\\\"One "
        "more.\\\"\\\"\\\"\\n\",\"stream\":true,\"temperature\":0,"
        "\"seed\":0,\"cache_prompt\":false,\"max_tokens\":512,"
        "\"stop\":[\"\\nclass\",\"\\ndef\",\"\\n#\",\"\\nif\",\"\\nprint\"],"
        "\"top_k\":1}");
    rec = dump(request_settings(&o));
    assert_string_equal(rec, "{\"temperature\":0,\"seed\":0,\"cache_prompt\":"
                             "false,\"max_tokens\":512,\"enable_thinking\":"
                             "false,\"extra\":{\"top_k\":1},\"endpoint\":"
                             "\"completions\"}");
    free(body);
    free(rec);
    /* an item without a HumanEval prompt (MBPP's) continues its text */
    q.code = NULL;
    o.request = NULL;
    body = request_body(&o, &q);
    assert_non_null(strstr(body, "{\"prompt\":\"```python\\ndef f(x):"));
    free(body);
    /* the chat task asks the chat path with the fenced text */
    grader_task_free(t);
    t = task("code");
    o.task = t;
    q.code = &it;
    assert_string_equal(request_path(&o), "/v1/chat/completions");
    body = request_body(&o, &q);
    assert_non_null(strstr(body, "\"content\":\"Complete the following"));
    assert_non_null(strstr(body, "```python\\ndef f(x):\\n```\"}]"));
    assert_non_null(strstr(body, "chat_template_kwargs"));
    free(body);
    json_decref(extra);
    grader_task_free(t);
}

/* A task file's "endpoint": "completions" asks so and is written back;
 * "chat" is the default and not written; another value is refused by
 * name. */
static void test_task_endpoint(void **state)
{
    char path[256], msg[512];
    struct grader_task *t;
    char *back;

    (void)state;
    write_file(test_dir, "c.json",
               "{\"name\": \"c\", \"reference\": \"code\", \"prompt\": "
               "\"{question}\", \"endpoint\": \"completions\", \"rules\": "
               "[{\"name\": \"b\", \"kind\": \"exec-body\"}]}",
               path, sizeof(path));
    t = task(path);
    assert_int_equal(grader_task_completions(t), 1);
    back = dump(taskfile_to_json(t));
    assert_non_null(strstr(back, "\"endpoint\":\"completions\""));
    free(back);
    grader_task_free(t);
    write_file(test_dir, "h.json",
               "{\"name\": \"c\", \"reference\": \"code\", \"endpoint\": "
               "\"chat\", \"rules\": [{\"name\": \"b\", \"kind\": "
               "\"exec-body\"}]}",
               path, sizeof(path));
    t = task(path);
    assert_int_equal(grader_task_completions(t), 0);
    back = dump(taskfile_to_json(t));
    assert_null(strstr(back, "endpoint"));
    free(back);
    grader_task_free(t);
    write_file(test_dir, "x.json",
               "{\"name\": \"c\", \"reference\": \"code\", \"endpoint\": "
               "\"/v1/completions\", \"rules\": [{\"name\": \"b\", "
               "\"kind\": \"exec-body\"}]}",
               path, sizeof(path));
    assert_null(taskfile_load(path, msg, sizeof(msg)));
    assert_non_null(strstr(msg, "\"endpoint\" must be \"chat\" or "
                                "\"completions\""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default),
        cmocka_unit_test(test_settings_follow),
        cmocka_unit_test(test_task_stops),
        cmocka_unit_test(test_tools),
        cmocka_unit_test(test_tools_parallel),
        cmocka_unit_test(test_completion),
        cmocka_unit_test(test_task_endpoint),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
