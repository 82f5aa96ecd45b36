/* launcher/outscan/outscan_names.c - the output scanner's heuristics about names and
 * values: which environment variable names hold secrets, which values are too
 * trivial to be secrets, and which values look like generated tokens.
 * docs/output-scan.md states the same rules in prose; keep them in step. */
#include "launcher/outscan/outscan_int.h"

#include <string.h>

/* Secret whatever the other rules say: the exact name, or a name ending in
 * "_" + one of these (so "PROD_DATABASE_URL" counts too). */
static const char *const known_secret_names[] = {
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_ACCESS_KEY_ID",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITLAB_TOKEN",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "DATABASE_URL",
    "REDIS_URL",
    "MONGODB_URI",
    "MONGO_URL",
    "MONGO_URI",
    "AMQP_URL",
    "RABBITMQ_URL",
    "BROKER_URL",
    "WEBHOOK_URL",
    "SENTRY_DSN",
    "MYSQL_PWD",
    "PGPASSWORD",
    "NPM_TOKEN",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "GOOGLE_API_KEY",
    "AZURE_CLIENT_SECRET",
    NULL,
};

/* Never secret: system variables whose names contain a secret word. */
static const char *const known_plain_names[] = {
    "XAUTHORITY",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "GOOGLE_APPLICATION_CREDENTIALS", /* a path to a key file, not the key */
    "DBUS_SESSION_BUS_ADDRESS",
    "SESSION_MANAGER",
    "DESKTOP_SESSION",
    NULL,
};

static const char *const known_plain_prefixes[] = {"XDG_", "GIT_AUTHOR_", "GIT_COMMITTER_", NULL};

/* Never secret: the last word of the name is one of these. */
static const char *const plain_last_words[] = {
    "PATH",  "PATHS",   "FILE",      "FILES",  "FILENAME", "DIR",     "DIRS",     "DIRECTORY",
    "SOCK",  "SOCKET",  "HOME",      "PID",    "TTY",      "HOST",    "HOSTNAME", "PORT",
    "URL",   "URI",     "ENDPOINT",  "REGION", "VERSION",  "NAME",    "USER",     "USERNAME",
    "EMAIL", "ENABLED", "MODE",      "TYPE",   "LEVEL",    "TIMEOUT", "TTL",      "SIZE",
    "COUNT", "LENGTH",  "ALGORITHM", "FORMAT", NULL,
};

/* A word containing one of these makes the name secret. */
static const char *const contained_stems[] = {
    "TOKEN",  "SECRET",  "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE",
    "COOKIE", "WEBHOOK", "SESSION",  "BEARER", "JWT",        NULL,
};

/* A word equal to or ending in one of these makes the name secret. */
static const char *const suffix_stems[] = {"KEY", "KEYS", "PASS", "DSN", "CREDS", NULL};

static unsigned char up(unsigned char c)
{
    return c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
}

/* Case-insensitive (ASCII): do s[0..n) and w[0..n) agree? */
static bool eq_n(const char *s, const char *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (up((unsigned char)s[i]) != up((unsigned char)w[i]))
            return false;
    return true;
}

/* Case-insensitive (ASCII): does s[0..n) equal the word w? The first byte
 * first: the environment is read against these lists on every run. */
static bool eq_word(const char *s, size_t n, const char *w)
{
    if (n == 0)
        return w[0] == '\0';
    return up((unsigned char)s[0]) == up((unsigned char)w[0]) && strlen(w) == n && eq_n(s, w, n);
}

static bool has_word(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    if (wl == 0 || wl > n)
        return wl == 0;
    const unsigned char first = up((unsigned char)w[0]);
    for (size_t i = 0; i + wl <= n; i++)
        if (up((unsigned char)s[i]) == first && eq_n(s + i, w, wl))
            return true;
    return false;
}

static bool ends_with_word(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    return wl <= n && eq_n(s + n - wl, w, wl);
}

static bool starts_with_word(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    return wl <= n && eq_n(s, w, wl);
}

static bool in_list(const char *s, size_t n, const char *const *list)
{
    for (size_t i = 0; list[i] != NULL; i++)
        if (eq_word(s, n, list[i]))
            return true;
    return false;
}

static bool word_is_secret(const char *w, size_t n)
{
    for (size_t i = 0; contained_stems[i] != NULL; i++)
        if (has_word(w, n, contained_stems[i]))
            return true;
    for (size_t i = 0; suffix_stems[i] != NULL; i++)
        if (ends_with_word(w, n, suffix_stems[i]))
            return true;
    /* AUTH, OAUTH, AUTHORIZATION; not AUTHOR, AUTHORS, XAUTHORITY */
    if (has_word(w, n, "AUTH") && (!has_word(w, n, "AUTHOR") || has_word(w, n, "AUTHORIZ")))
        return true;
    /* API, APIKEY, APITOKEN; not CAPITAL, RAPID */
    if (starts_with_word(w, n, "API"))
        return true;
    return false;
}

static bool known_secret(const char *name, size_t len)
{
    for (size_t i = 0; known_secret_names[i] != NULL; i++) {
        const char *k = known_secret_names[i];
        size_t kl = strlen(k);
        if (len == kl ? eq_n(name, k, len)
                      : len > kl && name[len - kl - 1] == '_' && eq_n(name + len - kl, k, kl))
            return true;
    }
    return false;
}

bool pd_os_name_is_nonsecret(const char *name, size_t len)
{
    if (known_secret(name, len))
        return false;
    if (in_list(name, len, known_plain_names))
        return true;
    for (size_t i = 0; known_plain_prefixes[i] != NULL; i++)
        if (starts_with_word(name, len, known_plain_prefixes[i]))
            return true;
    size_t w = len;
    while (w > 0 && pd_os_is_alnum((unsigned char)name[w - 1]))
        w--;
    return w < len && w > 0 && in_list(name + w, len - w, plain_last_words);
}

bool pd_outscan_env_name_is_secret(const char *name, size_t len)
{
    if (name == NULL || len == 0)
        return false;
    if (known_secret(name, len))
        return true;
    if (pd_os_name_is_nonsecret(name, len))
        return false;
    for (size_t i = 0; i < len;) {
        while (i < len && !pd_os_is_alnum((unsigned char)name[i]))
            i++;
        size_t j = i;
        while (j < len && pd_os_is_alnum((unsigned char)name[j]))
            j++;
        if (j > i && word_is_secret(name + i, j - i))
            return true;
        i = j;
    }
    return false;
}

/* Values of 8 bytes or more that are still not secrets (compared ignoring case). */
static const char *const trivial_words[] = {
    "changeme",    "changeit",   "password",   "passw0rd",    "undefined", "localhost",
    "development", "production", "username",   "placeholder", "disabled",  "anonymous",
    "required",    "optional",   "<redacted>", "redacted",    "database",  NULL,
};

static bool is_placeholder(const unsigned char *v, size_t len)
{
    /* ${NAME}, $(cmd), {{ name }}, <your-key>, whole value only */
    if (len >= 3 && v[0] == '$' &&
        ((v[1] == '{' && v[len - 1] == '}') || (v[1] == '(' && v[len - 1] == ')')))
        return true;
    if (len >= 4 && v[0] == '{' && v[1] == '{' && v[len - 2] == '}' && v[len - 1] == '}')
        return true;
    return len >= 2 && v[0] == '<' && v[len - 1] == '>';
}

bool pd_outscan_value_is_trivial(const void *value, size_t len)
{
    const unsigned char *v = value;
    if (v == NULL || len < 8)
        return true;
    /* fewer than three distinct bytes: "xxxxxxxx", "abababab", "********" */
    unsigned char a = v[0], b = v[0];
    bool third = false;
    for (size_t i = 1; i < len && !third; i++) {
        if (v[i] == a || v[i] == b)
            continue;
        if (a == b)
            b = v[i];
        else
            third = true;
    }
    if (!third)
        return true;
    /* numbers, dates, times, versions, IPv4 addresses with fewer than 12 digits */
    size_t digits = 0;
    bool numeric = true;
    for (size_t i = 0; i < len && numeric; i++) {
        if (v[i] >= '0' && v[i] <= '9')
            digits++;
        else if (strchr(".-:/ ", v[i]) == NULL || v[i] == '\0')
            numeric = false;
    }
    if (numeric && digits < 12)
        return true;
    if (is_placeholder(v, len))
        return true;
    return in_list((const char *)v, len, trivial_words);
}

bool pd_outscan_line_is_secret(const void *line, size_t len)
{
    const unsigned char *v = line;
    if (pd_outscan_value_is_trivial(v, len))
        return false;
    /* One class alone is how words and prose look ("settings", "the prod
     * keys live here"): printing such a word elsewhere must not deny a run.
     * A long unbroken run of one class is a generated value again. */
    bool letter = false, digit = false, other = false, blank = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = v[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            letter = true;
        else if (c >= '0' && c <= '9')
            digit = true;
        else if (c == ' ' || c == '\t')
            blank = true;
        else
            other = true;
    }
    return (int)letter + (int)digit + (int)other >= 2 || (len >= 16 && !blank);
}

bool pd_os_value_is_tokenlike(const unsigned char *v, size_t len)
{
    if (len < 12)
        return false;
    bool lower = false, upper = false, digit = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = v[i];
        if (c <= ' ' || c == 0x7f)
            return false;
        lower = lower || (c >= 'a' && c <= 'z');
        upper = upper || (c >= 'A' && c <= 'Z');
        digit = digit || (c >= '0' && c <= '9');
    }
    return (int)lower + (int)upper + (int)digit >= 2;
}
