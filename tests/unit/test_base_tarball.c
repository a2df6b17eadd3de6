/*
 * test_base_tarball.c - a bundle's tar.gz (orchestrator/base/tarball.c):
 * written and read back entry for entry, the same bytes twice, and every
 * hostile header refused: a name with "..", absolute, a link, a device,
 * a size past the cap, a bad checksum.
 *
 * Tests: orchestrator/base/tarball.c
 */
#include "helpers.h"

#include <string.h>

#include "../../orchestrator/base/tarball.h"
#include "../../util/util.h"

static void make(struct buf *gz)
{
    struct buf tar = {0};

    memset(gz, 0, sizeof(*gz));
    assert_int_equal(tarball_add_dir(&tar, "bundle/"), 0);
    assert_int_equal(tarball_add(&tar, "bundle/a.txt", "hello\n", 6), 0);
    assert_int_equal(tarball_add(&tar, "bundle/rows/R1.jsonl", "", 0), 0);
    assert_int_equal(tarball_gzip(&tar, gz), 0);
    buf_release(&tar);
}

static void test_round_trip(void **state)
{
    struct buf a, b;
    struct tarball t;
    char msg[300];

    (void)state;
    make(&a);
    make(&b);
    assert_int_equal(a.len, b.len); /* no time, no name in the gzip */
    assert_memory_equal(a.p, b.p, a.len);
    assert_int_equal(tarball_read(a.p, a.len, &t, msg, sizeof(msg)), 0);
    assert_int_equal(t.n, 3);
    assert_true(t.e[0].dir);
    assert_string_equal(t.e[0].name, "bundle");
    assert_string_equal(t.e[1].name, "bundle/a.txt");
    assert_int_equal(t.e[1].n, 6);
    assert_memory_equal(t.e[1].p, "hello\n", 6);
    assert_int_equal(t.e[2].n, 0);
    tarball_release(&t);
    buf_release(&a);
    buf_release(&b);
}

static void test_names(void **state)
{
    struct buf tar = {0};

    (void)state;
    assert_true(tarball_name_ok("bundle/rows/Q4_K_M.jsonl"));
    assert_false(tarball_name_ok("../x"));
    assert_false(tarball_name_ok("bundle/../x"));
    assert_false(tarball_name_ok("bundle/.."));
    assert_false(tarball_name_ok(".."));
    assert_false(tarball_name_ok("/etc/passwd"));
    assert_false(tarball_name_ok("a//b"));
    assert_false(tarball_name_ok("a b"));
    assert_false(tarball_name_ok(""));
    assert_false(tarball_name_ok("bundle/")); /* the slash is a folder's */
    assert_int_equal(tarball_add_dir(&tar, "bundle//"), -1);
    assert_int_equal(tarball_add(&tar, "bundle/", "x", 1), -1);
    assert_true(tarball_name_ok("bundle/..x")); /* a name, not a step up */
    assert_int_equal(tarball_add(&tar, "../x", "x", 1), -1);
    buf_release(&tar);
}

/* A one-entry archive whose header is changed by edit, checksum fixed
 * again unless edit broke it on purpose. */
static int read_edited(void (*edit)(unsigned char *h), char *msg, size_t size,
                       int fix_sum)
{
    struct buf tar = {0}, gz = {0};
    struct tarball t;
    unsigned char *h;
    unsigned sum = 0;
    size_t i;
    int rc;

    assert_int_equal(tarball_add(&tar, "bundle/a", "abc", 3), 0);
    h = (unsigned char *)tar.p;
    edit(h);
    if (fix_sum) {
        memset(h + 148, ' ', 8);
        for (i = 0; i < 512; i++)
            sum += h[i];
        snprintf((char *)h + 148, 8, "%06o", sum);
        h[155] = ' ';
    }
    assert_int_equal(tarball_gzip(&tar, &gz), 0);
    rc = tarball_read(gz.p, gz.len, &t, msg, size);
    tarball_release(&t);
    buf_release(&tar);
    buf_release(&gz);
    return rc;
}

static void dotdot(unsigned char *h)
{
    memcpy(h, "bundle/../a", 12);
}
static void absolute(unsigned char *h)
{
    memcpy(h, "/etc/a\0", 7);
}
static void symlink_(unsigned char *h)
{
    h[156] = '2';
}
static void hardlink(unsigned char *h)
{
    h[156] = '1';
}
static void device(unsigned char *h)
{
    h[156] = '3';
}
static void pax(unsigned char *h)
{
    h[156] = 'x';
}
static void huge(unsigned char *h)
{
    memcpy(h + 124, "77777777777", 11);
}
static void renamed(unsigned char *h)
{
    h[0] = 'B';
}
static void escapes(unsigned char *h)
{
    memcpy(h, "bundle/\n\033[2J", 12);
}
static void folder_bytes(unsigned char *h)
{
    h[156] = '5';
}
/* a folder "bundle//": one slash is the entry's, "bundle/" is left, a
 * name no writer makes (fuzz_tar found it read, and not written again);
 * a file "bundle/a/", a file no folder can hold */
static void folder_two_slashes(unsigned char *h)
{
    memcpy(h, "bundle//\0", 9);
    h[156] = '5';
    memcpy(h + 124, "00000000000", 11);
}
static void file_slash(unsigned char *h)
{
    memcpy(h, "bundle/a/\0", 10);
}
static void not_octal(unsigned char *h)
{
    memcpy(h + 124, "0000000009x", 11);
}

/* A header that declares 8 GiB (a bomb's), and a stream that ends
 * before the entry could: refused at the header as it is unpacked, not
 * after the stream (issue 33: 1 GiB allocated before the refusal). */
static void test_bomb_header(void **state)
{
    struct buf tar = {0}, gz = {0};
    struct tarball t;
    unsigned char *h;
    unsigned sum = 0;
    char msg[300] = "";
    size_t i;

    (void)state;
    assert_int_equal(tarball_add(&tar, "bundle/a", "abc", 3), 0);
    h = (unsigned char *)tar.p;
    huge(h);
    memset(h + 148, ' ', 8);
    for (i = 0; i < 512; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
    assert_int_equal(tarball_gzip(&tar, &gz), 0);
    /* the stream cut: its last bytes and the trailer gone */
    assert_int_equal(tarball_read(gz.p, gz.len - 12, &t, msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "'bundle/a': an entry past the cap"));
    tarball_release(&t);
    buf_release(&tar);
    buf_release(&gz);
}

static void test_hostile(void **state)
{
    char msg[300];

    (void)state;
    assert_int_equal(read_edited(dotdot, msg, sizeof(msg), 1), -1);
    assert_non_null(strstr(msg, "'..'"));
    assert_int_equal(read_edited(absolute, msg, sizeof(msg), 1), -1);
    assert_int_equal(read_edited(symlink_, msg, sizeof(msg), 1), -1);
    assert_non_null(strstr(msg, "links"));
    assert_int_equal(read_edited(hardlink, msg, sizeof(msg), 1), -1);
    assert_int_equal(read_edited(device, msg, sizeof(msg), 1), -1);
    assert_int_equal(read_edited(pax, msg, sizeof(msg), 1), -1);
    assert_int_equal(read_edited(huge, msg, sizeof(msg), 1), -1);
    assert_non_null(strstr(msg, "cap"));
    assert_int_equal(read_edited(renamed, msg, sizeof(msg), 1), 0);
    assert_int_equal(read_edited(renamed, msg, sizeof(msg), 0), -1);
    assert_non_null(strstr(msg, "checksum"));
    assert_int_equal(read_edited(symlink_, msg, sizeof(msg), 0), -1);
    assert_non_null(strstr(msg, "checksum"));
    assert_int_equal(
        tarball_read("not gzip", 8, &(struct tarball){0}, msg, sizeof(msg)),
        -1);
    /* a name of control characters is shown, one line (fuzz_tar found
     * it in a refusal as it was); a refusal says what it refuses */
    assert_int_equal(read_edited(escapes, msg, sizeof(msg), 0), -1);
    assert_non_null(strstr(msg, "'bundle/\\x0a\\x1b[2J"));
    assert_null(strchr(msg, '\n'));
    assert_null(strchr(msg, '\033'));
    assert_int_equal(read_edited(folder_bytes, msg, sizeof(msg), 1), -1);
    assert_non_null(strstr(msg, "a folder with bytes"));
    assert_int_equal(read_edited(folder_two_slashes, msg, sizeof(msg), 1), -1);
    assert_non_null(strstr(msg, "'bundle//': a name"));
    assert_int_equal(read_edited(file_slash, msg, sizeof(msg), 1), -1);
    assert_non_null(strstr(msg, "'bundle/a/': a name"));
    assert_int_equal(read_edited(not_octal, msg, sizeof(msg), 1), -1);
    assert_non_null(strstr(msg, "not octal"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_bomb_header),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
