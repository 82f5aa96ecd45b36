/* policy/shell/shell_programs.c - the per-program table of the shell gate: what
 * the programs an agent runs most can do on their own with their arguments.
 *
 * A row names a program (by base name), what its operands are, what its
 * options that matter take (an option spec, shell_opts.c), and what it reads
 * on stdin. Programs whose grammar a row cannot say (find, git, sed, grep,
 * cp and kin, tar, interpreters, xargs) have a handler of their own. A
 * program the table does not know is judged the generic way: every word
 * that looks like a path is a read (secrets and deny globs deny), and
 * `-o FILE` / `--output[=]FILE` is a write. Rows apply to a bare name or a
 * path in a system directory only (./find is some other program); shells
 * and interpreters are judged by shell_interp.c, .venv/bin/python too. A
 * program that dumps the environment (env alone, printenv, ps e) is
 * unjudged: the environment may hold secrets.
 *
 * Operand kinds (one character per position, the last repeats):
 *   D data   N names it only looks at (stat, basename)   R read (ls, du and
 *   tree read the folders they list, secret ones too)   W write
 *   C create   X delete   P the pattern / mode: data, unless an option
 *   gave it (kinds P, Q or p), then the position does not exist
 *   U a URL: data, but a file:// URL reads the file. */
#include <string.h>

#include "policy/shell/shell_judge.h"
#include "policy/shell/shell_programs.h"

#define SP_DATA    0x01u /* stdin is data (a filter) */
#define SP_POSIX   0x02u /* options end at the first operand */
#define SP_NEEDOUT 0x04u /* without an output option it writes a name it makes up */
#define SP_OPAQUE  0x08u /* always unjudged (its arguments can run anything) */
#define SP_ENVDUMP 0x10u /* prints the environment: unjudged (it may hold secrets) */

typedef void (*sp_handler)(struct sh_judge *j, const struct pd_sh_word *w, size_t n);

struct sp_row {
    const char *name;
    unsigned flags;
    const char *operands;
    const char *spec;
    sp_handler fn; /* a handler of its own instead of operands/spec */
};

static void sp_dd(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
static void sp_ps(struct sh_judge *j, const struct pd_sh_word *w, size_t n);

#define SUMS "-a:D --algorithm:D -l:D --length:D"
#define ZIP  "-c:o --stdout:o --to-stdout:o -t:o --test:o -l:o --list:o -S:D --suffix:D"
#define CC                                                                                         \
    "-o:W -MF:W -MT:D -MQ:D -I:D -L:D -D:D -U:D -x:D -l:D -include:R -imacros:R -isystem:D "       \
    "-iquote:D -idirafter:D -iprefix:D -isysroot:D --sysroot:D -B:U -wrapper:U -fplugin*:u "       \
    "-specs*:u -save-temps*:u -Xlinker:D -Xassembler:D -Xpreprocessor:D -T:R -e:D -u:D -z:D "      \
    "-aux-info:W -dumpdir:D -dumpbase:D -arch:D -target:D"
#define CURL                                                                                       \
    "-o:W --output:W -O:u --remote-name:u --remote-name-all:u -J:u -K:R --config:R -T:R "          \
    "--upload-file:R -d:A --data:A --data-binary:A --data-ascii:A --data-raw:D "                   \
    "--data-urlencode:A --json:A -F:A --form:A --form-string:D -H:A --header:A -b:A --cookie:A "   \
    "-c:W --cookie-jar:W -D:W --dump-header:W --trace:W --trace-ascii:W --stderr:W -E:R "          \
    "--cert:R --key:R --cacert:R --capath:D --netrc-file:R -n:u --netrc:u --netrc-optional:u "     \
    "-u:D --user:D -x:D --proxy:D -X:D --request:D -A:D --user-agent:D -e:D --referer:D -w:A "     \
    "--write-out:A --output-dir:W -m:D --max-time:D --connect-timeout:D -r:D --range:D -C:D "      \
    "--retry:D -y:D -Y:D --resolve:D --interface:D -z:D --time-cond:D --unix-socket:R "            \
    "--libcurl:W --variable:A --url:D"
#define WGET                                                                                       \
    "-O:W --output-document:W -o:W --output-file:W -a:W --append-output:W -P:W "                   \
    "--directory-prefix:W -i:R --input-file:R --post-file:R --body-file:R --load-cookies:R "       \
    "--save-cookies:W --certificate:R --private-key:R --ca-certificate:R --ca-directory:D -e:U "   \
    "--execute:U --config:R -U:D --user-agent:D --header:D --post-data:D --method:D -t:D "         \
    "--tries:D -T:D --timeout:D -w:D --wait:D --user:D --password:D -Q:D --quota:D -l:D "          \
    "--level:D -A:D --accept:D -R:D --reject:D -D:D --domains:D --exclude-domains:D -I:D "         \
    "--include-directories:D -X:D --exclude-directories:D --referer:D --limit-rate:D -B:D "        \
    "--base:D --bind-address:D"

static const struct sp_row rows[] = {
    /* data only: nothing they are given names a file they open */
    {"yes", 0, "D", "", NULL},
    {"seq", 0, "D", "-f:D --format:D -s:D --separator:D", NULL},
    {"sleep", 0, "D", "", NULL},
    {"expr", 0, "D", "", NULL},
    {"factor", SP_DATA, "D", "", NULL},
    {"numfmt", SP_DATA, "D", "", NULL},
    {"tr", SP_DATA, "D", "", NULL},
    {"bc", SP_DATA, "R", "", NULL}, /* expressions, no system access (dc has !) */
    {"whoami", 0, "D", "", NULL},
    {"id", 0, "D", "", NULL},
    {"groups", 0, "D", "", NULL},
    {"uname", 0, "D", "", NULL},
    {"hostname", 0, "D", "-F:R --file:R", NULL},
    {"nproc", 0, "D", "", NULL},
    {"arch", 0, "D", "", NULL},
    {"tty", 0, "D", "", NULL},
    {"getconf", 0, "D", "", NULL},
    {"locale", 0, "D", "", NULL},
    {"date", 0, "D", "-f:R --file:R -d:D --date:D -r:D --reference:D -I?:D --iso-8601?:D", NULL},
    {"cal", 0, "D", "", NULL},
    {"free", 0, "D", "", NULL},
    {"uptime", 0, "D", "", NULL},
    {"ps", 0, "D", "", sp_ps},
    {"pgrep", 0, "D", "-u:D -U:D -g:D -G:D -P:D -s:D -t:D -d:D", NULL},
    {"pkill", 0, "D", "-u:D -U:D -g:D -G:D -P:D -s:D -t:D", NULL},
    {"who", 0, "D", "", NULL},
    {"users", 0, "D", "", NULL},
    {"printenv", SP_ENVDUMP, "D", "", NULL},
    {"env", SP_ENVDUMP, "D", "-u:D --unset:D", NULL}, /* env running no program */
    /* bash's builtins run as programs (/bin/echo, env echo) */
    {"echo", 0, "D", "", NULL},
    {"printf", 0, "D", "", NULL},
    {"true", 0, "D", "", NULL},
    {"false", 0, "D", "", NULL},
    {"kill", 0, "D", "", NULL},
    {"pwd", 0, "D", "", NULL},
    {"test", 0, "N", "", NULL},
    {"[", 0, "N", "", NULL},
    /* folders they list, names they only look at */
    {"ls", 0, "R",
     "-I:D --ignore:D --hide:D -T:D --tabsize:D -w:D --width:D --format:D --sort:D --time:D "
     "--block-size:D --indicator-style:D --quoting-style:D --time-style:D",
     NULL},
    {"stat", 0, "N", "-c:D --format:D --printf:D", NULL},
    {"du", 0, "R",
     "-X:R --exclude-from:R --exclude:D -d:D --max-depth:D -B:D --block-size:D -t:D --threshold:D "
     "--time-style:D --files0-from:U",
     NULL},
    {"df", 0, "N", "-B:D --block-size:D -t:D --type:D -x:D --exclude-type:D --output?:D", NULL},
    {"realpath", 0, "N", "--relative-to:D --relative-base:D", NULL},
    {"readlink", 0, "N", "", NULL},
    {"basename", 0, "N", "-s:D --suffix:D", NULL},
    {"dirname", 0, "N", "", NULL},
    {"which", 0, "N", "", NULL},
    {"whereis", 0, "N", "-B:D -M:D -S:D", NULL},
    {"tree", 0, "R",
     "-I:D -P:D -o:W -L:D --filelimit:D --timefmt:D -H:D -T:D --charset:D "
     "--fromfile:u",
     NULL},
    /* filters: their operands are files they read, stdin is data */
    {"cat", SP_DATA, "R", "", NULL},
    {"tac", SP_DATA, "R", "-s:D --separator:D", NULL},
    {"nl", SP_DATA, "R", "-b:D -d:D -f:D -h:D -i:D -l:D -n:D -s:D -v:D -w:D", NULL},
    {"head", SP_DATA, "R", "-n:D -c:D --lines:D --bytes:D", NULL},
    {"tail", SP_DATA, "R",
     "-n:D -c:D --lines:D --bytes:D -s:D --sleep-interval:D --pid:D --max-unchanged-stats:D", NULL},
    {"wc", SP_DATA, "R", "--files0-from:U", NULL},
    {"sort", SP_DATA, "R",
     "-o:W --output:W -T:D --temporary-directory:D -k:D --key:D -t:D --field-separator:D -S:D "
     "--buffer-size:D --parallel:D --batch-size:D --sort:D --random-source:R --files0-from:U "
     "--compress-program:U",
     NULL},
    {"uniq", SP_DATA, "RW",
     "-f:D -s:D -w:D --skip-fields:D --skip-chars:D --check-chars:D --group?:D --all-repeated?:D",
     NULL},
    {"cut", SP_DATA, "R",
     "-b:D -c:D -d:D -f:D --bytes:D --characters:D --delimiter:D --fields:D --output-delimiter:D",
     NULL},
    {"paste", SP_DATA, "R", "-d:D --delimiters:D", NULL},
    {"join", SP_DATA, "R", "-a:D -e:D -o:D -t:D -v:D -1:D -2:D -j:D", NULL},
    {"comm", SP_DATA, "R", "--output-delimiter:D", NULL},
    {"fold", SP_DATA, "R", "-w:D --width:D", NULL},
    {"fmt", SP_DATA, "R", "-w:D -p:D -g:D --width:D --prefix:D --goal:D", NULL},
    {"column", SP_DATA, "R",
     "-s:D -o:D -c:D -N:D -H:D -W:D -E:D -R:D -T:D -l:D -d:D --table-columns:D --separator:D "
     "--output-separator:D --output-width:D",
     NULL},
    {"expand", SP_DATA, "R", "-t:D --tabs:D", NULL},
    {"unexpand", SP_DATA, "R", "-t:D --tabs:D", NULL},
    {"rev", SP_DATA, "R", "", NULL},
    {"od", SP_DATA, "R",
     "-A:D -j:D -N:D -t:D -w?:D -S?:D --address-radix:D --skip-bytes:D --read-bytes:D --format:D "
     "--width?:D --strings?:D --endian:D",
     NULL},
    {"hexdump", SP_DATA, "R", "-e:D -f:R -n:D -s:D", NULL},
    {"xxd", SP_DATA, "RW",
     "-s:D -l:D -c:D -g:D -o:D -n:D -seek:D -len:D -cols:D -groupsize:D -offset:D -name:D", NULL},
    {"strings", SP_DATA, "R",
     "-n:D -t:D -e:D -s:D -T:D --bytes:D --radix:D --encoding:D --output-separator:D --target:D",
     NULL},
    {"base64", SP_DATA, "R", "-w:D --wrap:D", NULL},
    {"base32", SP_DATA, "R", "-w:D --wrap:D", NULL},
    {"basenc", SP_DATA, "R", "-w:D --wrap:D", NULL},
    {"md5sum", SP_DATA, "R", "", NULL},
    {"sha1sum", SP_DATA, "R", "", NULL},
    {"sha224sum", SP_DATA, "R", "", NULL},
    {"sha256sum", SP_DATA, "R", "", NULL},
    {"sha384sum", SP_DATA, "R", "", NULL},
    {"sha512sum", SP_DATA, "R", "", NULL},
    {"b2sum", SP_DATA, "R", SUMS, NULL},
    {"cksum", SP_DATA, "R", SUMS, NULL},
    {"sum", SP_DATA, "R", "", NULL},
    {"diff", SP_DATA, "R",
     "-U:D -C:D -L:D --label:D -I:D --ignore-matching-lines:D -x:D --exclude:D -X:R "
     "--exclude-from:R --from-file:R --to-file:R -D:D --ifdef:D --line-format:D "
     "--old-line-format:D --new-line-format:D --unchanged-line-format:D --old-group-format:D "
     "--new-group-format:D --changed-group-format:D --unchanged-group-format:D -F:D "
     "--show-function-line:D -W:D --width:D --tabsize:D --horizon-lines:D --color?:D --palette:D "
     "-S:D --starting-file:D --unified?:D --context?:D",
     NULL},
    {"cmp", SP_DATA, "R", "-i:D --ignore-initial:D -n:D --bytes:D", NULL},
    {"diff3", SP_DATA, "R", "-L:D --label:D --diff-program:U", NULL},
    {"sdiff", SP_DATA, "R", "-o:W --output:W -w:D --width:D --diff-program:U", NULL},
    {"jq", SP_DATA, "PR",
     "-f:Q --from-file:Q --arg:2 --argjson:2 --slurpfile:F --rawfile:F --indent:D -L:D "
     "--library-path:D",
     NULL},
    {"less", SP_DATA, "R",
     "-o:W --log-file:W -O:W --LOG-FILE:W -p:D --pattern:D -t:D --tag:D -T:R --tag-file:R -k:R "
     "--lesskey-file:R -x:D -y:D -z:D -b:D -h:D -j:D -P:D --prompt:D",
     NULL},
    {"more", SP_DATA, "R", "", NULL},
    {"file", SP_DATA, "R",
     "-m:R --magic-file:R -f:U --files-from:U -F:D --separator:D -e:D --exclude:D -P:D", NULL},
    {"iconv", SP_DATA, "R", "-f:D -t:D --from-code:D --to-code:D -o:W --output:W", NULL},
    {"dd", SP_DATA, "D", "", sp_dd},
    /* compressors: they replace the files they are given */
    {"gzip", SP_DATA, "W", ZIP, NULL},
    {"gunzip", SP_DATA, "W", ZIP, NULL},
    {"bzip2", SP_DATA, "W", ZIP, NULL},
    {"bunzip2", SP_DATA, "W", ZIP, NULL},
    {"xz", SP_DATA, "W", ZIP " -T:D --threads:D", NULL},
    {"unxz", SP_DATA, "W", ZIP, NULL},
    {"lzma", SP_DATA, "W", ZIP, NULL},
    {"zstd", SP_DATA, "W", ZIP " -o:W -D:R -T:D --threads?:D", NULL},
    {"unzstd", SP_DATA, "W", ZIP " -o:W -D:R", NULL},
    {"lz4", SP_DATA, "RW", ZIP, NULL},
    {"zcat", SP_DATA, "R", "", NULL},
    {"bzcat", SP_DATA, "R", "", NULL},
    {"xzcat", SP_DATA, "R", "", NULL},
    {"zstdcat", SP_DATA, "R", "", NULL},
    /* writers */
    {"tee", SP_DATA, "W", "--output-error?:D", NULL},
    {"touch", 0, "W", "-r:R --reference:R -d:D --date:D -t:D", NULL},
    {"mkdir", 0, "C", "-m:D --mode:D --context?:D", NULL},
    {"rmdir", 0, "X", "", NULL},
    {"mkfifo", 0, "C", "-m:D --mode:D --context?:D", NULL},
    {"mknod", 0, "CD", "-m:D --mode:D --context?:D", NULL},
    {"mktemp", 0, "C", "-p:D --tmpdir?:D --suffix:D", NULL},
    {"rm", 0, "X", "--interactive?:D --preserve-root?:D", NULL},
    {"unlink", 0, "X", "", NULL},
    {"shred", 0, "W", "-n:D --iterations:D -s:D --size:D --random-source:R --remove?:D", NULL},
    {"truncate", 0, "W", "-s:D --size:D -r:R --reference:R", NULL},
    {"chmod", 0, "PW", "-r:p -w:p -x:p -X:p -s:p -t:p -u:p -g:p -o:p -a:p --reference:Q", NULL},
    {"chown", 0, "PW", "--reference:Q --from:D", NULL},
    {"chgrp", 0, "PW", "--reference:Q", NULL},
    {"split", SP_DATA, "RW",
     "-a:D -b:D -C:D -l:D -n:D -t:D --suffix-length:D --additional-suffix:D --bytes:D "
     "--line-bytes:D --lines:D --number:D --separator:D --numeric-suffixes?:D --hex-suffixes?:D "
     "--filter:U",
     NULL},
    {"csplit", SP_DATA, "RD", "-f:W --prefix:W -b:D --suffix-format:D -n:D --digits:D", NULL},
    /* compilers: operands are sources, -o is the output */
    {"gcc", 0, "R", CC, NULL},
    {"g++", 0, "R", CC, NULL},
    {"cc", 0, "R", CC, NULL},
    {"c++", 0, "R", CC, NULL},
    {"clang", 0, "R", CC, NULL},
    {"clang++", 0, "R", CC, NULL},
    {"tcc", 0, "R", CC, NULL},
    {"ld", 0, "R", "-o:W --output:W -T:R --script:R -L:D -l:D -e:D -m:D -z:D --sysroot:D", NULL},
    {"as", 0, "R", "-o:W -I:D --defsym:D", NULL},
    /* the network (when allow_network allows it) */
    {"curl", 0, "U", CURL, NULL},
    {"wget", SP_NEEDOUT, "U", WGET, NULL},
    {"ssh", SP_POSIX, "D",
     "-i:R -F:R -E:W -o:D -p:D -l:D -L:D -R:D -D:D -J:D -b:D -c:D -m:D -O:D -Q:D -S:D -w:D -W:D "
     "-B:D -e:D -I:D",
     NULL},
    {"sftp", 0, "D", "-b:R -F:R -i:R -o:D -P:D -S:U -D:U -l:D -R:D -B:D -c:D -J:D -s:D -X:D", NULL},
    {"nc", 0, "D", "-e:U -c:U --exec:U --sh-exec:U --lua-exec:U -o:W --output:W", NULL},
    {"ncat", 0, "D", "-e:U -c:U --exec:U --sh-exec:U --lua-exec:U -o:W --output:W", NULL},
    {"netcat", 0, "D", "-e:U -c:U", NULL},
    {"socat", SP_OPAQUE, "D", "", NULL},
    /* grammars of their own */
    {"find", 0, "", "", sj_find},
    {"git", 0, "", "", sj_git},
    {"sed", SP_DATA, "", "", sj_sed},
    {"grep", SP_DATA, "", "", sj_grep},
    {"egrep", SP_DATA, "", "", sj_grep},
    {"fgrep", SP_DATA, "", "", sj_grep},
    {"rg", SP_DATA, "", "", sj_grep},
    {"ag", SP_DATA, "", "", sj_grep},
    {"cp", 0, "", "", sj_copy},
    {"mv", 0, "", "", sj_copy},
    {"install", 0, "", "", sj_copy},
    {"ln", 0, "", "", sj_copy},
    {"rsync", 0, "", "", sj_copy},
    {"scp", 0, "", "", sj_copy},
    {"tar", 0, "", "", sj_tar},
    {"unzip", 0, "", "", sj_unpack},
    {"zip", 0, "", "", sj_unpack},
    {"cpio", 0, "", "", sj_unpack},
    {"patch", 0, "", "", sj_unpack},
    {"xargs", 0, "", "", sj_xargs},
};

static const struct sp_row *find_row(const char *name)
{
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
        if (strcmp(rows[k].name, name) == 0)
            return &rows[k];
    return NULL;
}

static const char *base_of(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

bool sj_opt_common(struct sh_judge *j, const struct sj_opt *o)
{
    switch (o->kind) {
    case 'D':
    case 'P':
    case 'M':
    case 'L':
    case '2':
        if (o->argw)
            sj_data(j, o->argw, o->arg, false);
        return true;
    case 'R':
    case 'Q':
        if (o->argw)
            sj_read(j, o->argw, o->arg);
        return true;
    case 'F': /* NAME FILE: the walker gave the file as a second 'D' */
        if (o->argw)
            sj_data(j, o->argw, o->arg, false);
        return true;
    case 'W':
    case 'T':
        if (o->argw)
            sj_write(j, PD_OP_WRITE, o->argw, o->arg);
        return true;
    case 'C':
        if (o->argw)
            sj_write(j, PD_OP_CREATE, o->argw, o->arg);
        return true;
    case 'X':
        if (o->argw)
            sj_write(j, PD_OP_DELETE, o->argw, o->arg);
        return true;
    case 'A':
        if (o->argw) {
            const char *at = strpbrk(o->arg, "@<");
            if (at && at[1])
                sj_read(j, o->argw, at + 1);
            else
                sj_data(j, o->argw, o->arg, false);
        }
        return true;
    case 'U':
    case 'u':
        sj_unjudged(j, "`%s` makes %s run or read what cannot be judged statically", o->optw->text,
                    j->prog);
        return true;
    default:
        return false;
    }
}

/* ---- the row engine ------------------------------------------------------- */

struct eng {
    const struct sp_row *row;
    bool pattern_given, to_stdout, output_given;
};

static void eng_opt(struct sh_judge *j, void *ud, const struct sj_opt *o)
{
    struct eng *e = ud;
    if (o->kind == 'P' || o->kind == 'Q' || o->kind == 'p')
        e->pattern_given = true;
    if (o->kind == 'W')
        e->output_given = true;
    if (o->kind == 'o')
        e->to_stdout = true;
    sj_opt_common(j, o);
}

static void eng_operand(struct sh_judge *j, void *ud, size_t index, const struct pd_sh_word *w)
{
    struct eng *e = ud;
    const char *ops = e->row->operands;
    if (e->pattern_given)
        while (ops[0] == 'P' && ops[1])
            ops++;
    size_t len = strlen(ops);
    if (!len)
        return;
    char kind = ops[index < len ? index : len - 1];
    switch (kind) {
    case 'D':
        sj_data(j, w, NULL, true);
        break;
    case 'P':
        sj_data(j, w, NULL, false);
        break;
    case 'N':
        sj_names(j, w, NULL);
        break;
    case 'R':
        sj_read(j, w, NULL);
        break;
    case 'W':
        sj_write(j, e->to_stdout ? PD_OP_READ : PD_OP_WRITE, w, NULL);
        break;
    case 'C':
        sj_write(j, PD_OP_CREATE, w, NULL);
        break;
    case 'X':
        sj_write(j, PD_OP_DELETE, w, NULL);
        break;
    case 'U':
        if (strncmp(w->text, "file://", 7) == 0) { /* file://HOST/PATH: the path */
            const char *path = strchr(w->text + 7, '/');
            if (path)
                sj_read(j, w, path);
        } else {
            sj_data(j, w, NULL, false);
        }
        break;
    default:
        sj_generic(j, w);
    }
}

static void sp_row(struct sh_judge *j, const struct sp_row *row, const struct pd_sh_word *w,
                   size_t n)
{
    struct eng e = {row, false, false, false};
    struct sj_walk_cb cb = {eng_opt, eng_operand, &e};
    if (row->flags & SP_OPAQUE)
        sj_unjudged(j, "%s can run programs and open files named anywhere in its arguments",
                    row->name);
    if (row->flags & SP_ENVDUMP)
        sj_unjudged(j, "%s prints the environment, which may hold secrets (API keys, tokens)",
                    row->name);
    sj_walk(j, w, n, 1, row->spec, (row->flags & SP_POSIX) ? SJW_POSIX : 0, &cb);
    if ((row->flags & SP_NEEDOUT) && !e.output_given)
        sj_unjudged(j, "%s writes a file whose name it takes from the server", row->name);
}

/* dd: if=FILE is read, of=FILE written; the rest is data. */
static void sp_dd(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    for (size_t k = 1; k < n && !j->denied; k++) {
        const char *t = w[k].text;
        if (strncmp(t, "if=", 3) == 0)
            sj_read(j, &w[k], t + 3);
        else if (strncmp(t, "of=", 3) == 0)
            sj_write(j, PD_OP_WRITE, &w[k], t + 3);
        else
            sj_data(j, &w[k], NULL, false);
    }
}

/* ps: data, but BSD-style options with e (ps e, ps auxe, ps eww) print the
 * environment of processes, which may hold secrets. */
static void sp_ps(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    for (size_t k = 1; k < n && !j->denied; k++) {
        const char *t = w[k].text;
        if (sj_is_literal(&w[k]) && t[0] != '-' && strchr(t, 'e') &&
            strspn(t, "aAcdefghjlLmMnNoOpqrsStTuvVwxXZ") == strlen(t))
            sj_unjudged(j, "`ps %s` prints the environment of processes, which may hold secrets",
                        t);
        else
            sj_data(j, &w[k], NULL, false);
    }
}

/* A program the table does not know: every path-like word is a read,
 * -o FILE and --output[=]FILE a write. */
static void sp_generic(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    for (size_t k = 1; k < n && !j->denied; k++) {
        const char *t = w[k].text;
        bool lit = sj_is_literal(&w[k]);
        if (lit && (strcmp(t, "-o") == 0 || strcmp(t, "--output") == 0) && k + 1 < n) {
            const struct pd_sh_word *a = &w[++k];
            if (!sj_is_literal(a) || sj_looks_like_path(j, a->text))
                sj_write(j, PD_OP_WRITE, a, NULL);
            continue;
        }
        if (lit && strncmp(t, "--output=", 9) == 0) {
            if (sj_looks_like_path(j, t + 9))
                sj_write(j, PD_OP_WRITE, &w[k], t + 9);
            continue;
        }
        sj_generic(j, &w[k]);
    }
}

/* A bare name, or a path in a system directory: ./find is not find. */
static bool system_program(const char *word)
{
    static const char *const dirs[] = {
        "/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/usr/local/sbin/", NULL};
    const char *slash = strrchr(word, '/');
    if (!slash)
        return true;
    for (size_t k = 0; dirs[k]; k++)
        if ((size_t)(slash + 1 - word) == strlen(dirs[k]) &&
            strncmp(word, dirs[k], strlen(dirs[k])) == 0)
            return true;
    return false;
}

void sj_program_args(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    const char *name = base_of(w[0].text);
    if (pd_shell_program_runs_code(name)) { /* also .venv/bin/python */
        sj_interp(j, w, n);
        return;
    }
    if (!system_program(w[0].text)) {
        sp_generic(j, w, n);
        return;
    }
    const struct sp_row *row = find_row(name);
    if (row && row->fn) {
        row->fn(j, w, n);
        return;
    }
    if (row) {
        sp_row(j, row, w, n);
        return;
    }
    sp_generic(j, w, n);
}

/* Which shells the parser reads a here-document or here-string script for:
 * no -c, and no script file operand (or -s). */
static bool shell_reads_script(const struct pd_sh_word *w, size_t n)
{
    for (size_t k = 1; k < n; k++) {
        const char *t = w[k].text;
        if (!sj_is_literal(&w[k]))
            return false;
        if (strcmp(t, "--") == 0)
            return k + 1 >= n;
        if (t[0] == '+' && t[1]) {
            if (strchr(t, 'o'))
                k++;
            continue;
        }
        if (t[0] != '-' || !t[1])
            return strcmp(t, "-") == 0 && k + 1 >= n;
        if (t[1] == '-') {
            if (strcmp(t, "--rcfile") == 0 || strcmp(t, "--init-file") == 0)
                k++;
            continue;
        }
        if (strchr(t, 'c'))
            return false;
        if (strchr(t, 's'))
            return true;
        if (strchr(t, 'o') || strchr(t, 'O'))
            k++;
    }
    return true;
}

enum sj_stdin sj_program_stdin(const struct pd_sh_word *w, size_t n)
{
    const char *name = base_of(w[0].text);
    if (strcmp(name, "xargs") == 0)
        return SJ_STDIN_NAMES;
    static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", NULL};
    for (size_t k = 0; shells[k]; k++)
        if (strcmp(name, shells[k]) == 0)
            return shell_reads_script(w, n) ? SJ_STDIN_SCRIPT : SJ_STDIN_UNKNOWN;
    if (strcmp(name, "git") == 0) {
        /* commit -F -, tag -F -, notes add -F -: a message */
        for (size_t k = 1; k < n; k++)
            if (w[k].text[0] != '-')
                return strcmp(w[k].text, "commit") == 0 || strcmp(w[k].text, "tag") == 0 ||
                               strcmp(w[k].text, "notes") == 0
                           ? SJ_STDIN_DATA
                           : SJ_STDIN_UNKNOWN;
        return SJ_STDIN_UNKNOWN;
    }
    const struct sp_row *row = find_row(name);
    return row && (row->flags & SP_DATA) ? SJ_STDIN_DATA : SJ_STDIN_UNKNOWN;
}
