/* policy/shell/shell_internal.h - shared between shell_lex.c (words, quoting,
 * substitutions, here-document bodies), shell_parse.c (grammar, command
 * building, public entry points) and shell_wrappers.c (wrapper unwrapping,
 * sh -c / eval / trap / here-document scripts). Not part of the interface. */
#ifndef PALDRON_POLICY_SHELL_INTERNAL_H
#define PALDRON_POLICY_SHELL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/shell/shell.h"

#define SH_ERR_MAX 320

/* A growable byte string, always NUL-terminated once non-empty. */
struct sh_buf {
    char *p;
    size_t len, cap;
};

/* State shared by one pd_sh_parse() call and every sub-parse it starts. */
struct sh_state {
    struct pd_sh_script *out;
    size_t cap;        /* capacity of out->cmds and capture */
    unsigned *capture; /* per command: capture level it was created at */
    unsigned nest;     /* current nesting, limited to PD_SH_MAX_NEST */
    size_t *woff;      /* source offsets of the words of the commands under
                          construction: a stack, as they nest */
    size_t nwoff, woffcap;
    bool failed; /* an error was recorded; err holds the first one */
    char err[SH_ERR_MAX];
};

/* A simple command under construction. */
struct sh_cmdb {
    struct pd_sh_cmd c;
    size_t woff0; /* index of its first word's offset in st->woff */
    size_t wcap, acap, rcap;
    size_t hd_pending; /* here-documents of this command whose body is not read yet */
};

/* A here-document whose body comes after the next newline token. */
struct sh_hd {
    struct sh_cmdb *b; /* command still under construction, or NULL: then cmd */
    size_t cmd;        /* index in out->cmds once b is finished */
    size_t redir;      /* index in the command's redirs */
    char *delim;
    size_t off; /* offset of the << operator */
    bool strip; /* <<- */
    bool quoted;
};

/* One source text being parsed: the string itself, or a backquote, sh -c,
 * eval, trap or here-document body. */
struct sh_parser {
    struct sh_state *st;
    const char *src;
    size_t len, pos;
    unsigned depth;           /* depth of commands created now */
    enum pd_sh_origin origin; /* origin of commands created now */
    unsigned capture;         /* number of enclosing output captures ($( ), ` `, <( )) */
    struct sh_hd *hd;         /* pending here-documents, in order */
    size_t nhd, hdcap;
};

/* A word under construction. */
struct sh_wordb {
    struct sh_buf text;
    unsigned flags;
    size_t start, end; /* raw range in the parser's src */
    size_t brace_at;   /* text length at the last unquoted '{' + 1, 0 if none open */
    bool brace_list;   /* saw , or .. after that '{' */
};

/* Word reading modes. */
enum sh_wmode {
    SH_WM_NORMAL,  /* command words, redirection targets, for/case words */
    SH_WM_ARRAY,   /* like NORMAL; NAME=( starts an array assignment */
    SH_WM_PATTERN, /* case pattern: also stops at | */
    SH_WM_REGEX,   /* right side of =~ in [[ ]]: ( ) | and blanks inside ( ) are literal */
};

/* ---- shell_lex.c ------------------------------------------------------- */

static inline char sh_at(const struct sh_parser *p, size_t i)
{
    return i < p->len ? p->src[i] : '\0';
}
static inline char sh_cur(const struct sh_parser *p)
{
    return sh_at(p, p->pos);
}
static inline bool sh_eof(const struct sh_parser *p)
{
    return p->pos >= p->len;
}

bool sh_is_blank(char c);
/* End of an unquoted word: end of input, blank, newline or an operator char. */
bool sh_is_delim(char c);
bool sh_is_name_start(char c);
bool sh_is_name_char(char c);

int sh_buf_put(struct sh_state *st, struct sh_buf *b, const char *s, size_t n);
int sh_buf_putc(struct sh_state *st, struct sh_buf *b, char c);
/* Detach the string (an allocated "" when empty); the buffer is reset. */
char *sh_buf_take(struct sh_state *st, struct sh_buf *b);

/* Record the first error (printf style) and return -1. */
int sh_fail(struct sh_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sh_oom(struct sh_state *st);
/* Append " (in <what> at offset <at>)" to the recorded error. */
void sh_wrap_err(struct sh_state *st, const char *what, size_t at);
/* Increase / decrease the nesting counter; fails with "nesting too deep". */
int sh_enter(struct sh_parser *p, size_t at);
void sh_leave(struct sh_parser *p);

/* Skip blanks and line continuations; with comments also a `#` comment. */
void sh_skip_blanks(struct sh_parser *p, bool comments);
/* Consume the newline at pos and read the pending here-document bodies. */
int sh_newline(struct sh_parser *p);
/* Skip blanks, comments and newlines (reading here-documents). */
int sh_skip_space_nl(struct sh_parser *p);
/* True when the unquoted literal `w` followed by a delimiter is at pos. */
bool sh_peek_word(const struct sh_parser *p, const char *w);

/* Read one word at pos. Returns 0 (word in *w, which the caller frees with
 * sh_wordb_free or takes), 1 when no word starts at pos, -1 on error. */
int sh_read_word(struct sh_parser *p, enum sh_wmode mode, struct sh_wordb *w);
void sh_wordb_free(struct sh_wordb *w);
/* Raw text of the word is NAME=, NAME+=, NAME[..]= or NAME[..]+= followed by
 * anything: an assignment (when in assignment position). */
bool sh_is_assignment(const struct sh_parser *p, const struct sh_wordb *w);
/* Read a here-document delimiter; sets *quoted. Returns 0, 1 (none), -1. */
int sh_read_delim(struct sh_parser *p, struct sh_buf *out, bool *quoted);
/* At `((` (command position or `for`): is it arithmetic (a matching `))`)? */
bool sh_arith_ahead(const struct sh_parser *p, size_t after_open);
/* Scan an arithmetic body after `((`, through the closing `))`. */
int sh_scan_arith(struct sh_parser *p, unsigned *flags, size_t open_at);
/* Read the pending here-document bodies (pos is after a newline token). */
int sh_read_heredocs(struct sh_parser *p);

/* ---- shell_parse.c ----------------------------------------------------- */

/* Parse a compound list up to a closing token (left unconsumed) or end of
 * input; *count receives the number of and-or lists. */
int sh_parse_list(struct sh_parser *p, size_t *count);
/* Parse text as a separate source (backquote, sh -c, eval, trap body):
 * commands at depth+1 with origin; `what` and `at` name it in errors. */
int sh_parse_sub(struct sh_parser *outer, const char *text, size_t len, enum pd_sh_origin origin,
                 bool captured, const char *what, size_t at);
/* Parse $( ), <( ) or >( ) in place: pos is after the `(`, open_at is the
 * offset of `$`, `<` or `>`. */
int sh_parse_subst_inline(struct sh_parser *p, char kind, size_t open_at);
void sh_word_free(struct pd_sh_word *w);
void sh_cmd_free(struct pd_sh_cmd *c);

/* ---- shell_wrappers.c -------------------------------------------------- */

/* Index of the real program in words[0..n) (see struct pd_sh_cmd.prog);
 * *dynamic is set when it cannot be told statically. */
size_t sh_unwrap(const struct pd_sh_word *words, size_t n, bool *dynamic);
/* The command cmds[k] was just added (its words' source offsets are at
 * st->woff[woff0..]): parse the body it runs, if any (sh -c, eval, trap),
 * marking it dynamic when the body is not static. */
int sh_parse_bodies(struct sh_parser *p, size_t k, size_t woff0);
/* The here-document body of the finished command cmds[k] (operator at
 * offset at) was just read: if the command is a shell reading its script
 * from it, parse it. */
int sh_heredoc_script(struct sh_parser *p, size_t k, size_t at);

#endif
