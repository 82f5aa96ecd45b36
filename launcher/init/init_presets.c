/* launcher/init/init_presets.c - the kinds of projects `paldron init --preset`
 * knows, and how a project's kind is told from its files.
 *
 * Each preset is what that kind of project needs so that its usual commands
 * (tests, builds, local installs) run under `paldron exec` as they run bare,
 * as an unprivileged user with every layer on: a false alarm in the first
 * minutes teaches the user to turn Paldron off.
 *
 * Where the tools write decides allow_paths. Python and Node keep sources
 * and tool output in well-known folders (src/, .venv/, node_modules/), so
 * those are listed. Go, Rust and C write next to the sources or at the top
 * of the project (go build's program, Cargo.lock, objects beside each .c),
 * and allow_paths names folders, not files: their policies make the whole
 * project writable, with the way to narrow it in the comment. The built-in
 * secrets, the protected paths and the policy file stay out of reach either
 * way.
 *
 * Rust has no allow_binaries list: cargo test and build scripts run
 * programs that cargo builds under names that change with every build
 * (target/debug/deps/NAME-HASH), which no list can name. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher/init/init.h"

/* The programs an agent's everyday shell calls use besides the toolchain:
 * reading and searching the project, git. */
#define EVERYDAY "@coreutils", "@git", "bash", "grep", "sed", "awk", "find", "xargs", "diff"

static const char *const python_markers[] = {"pyproject.toml",   "setup.py", "setup.cfg",
                                             "requirements.txt", "Pipfile",  NULL};
static const char *const python_always[] = {"src/", "tests/", ".pytest_cache/", ".venv/", NULL};
/* "__pycache__/" stands for the top of the project's cache (conftest.py,
 * setup.py); init_preset_policy.c lists it when *.py files are there, and
 * the folders of top-level packages (flat layout) too. */
static const char *const python_present[] = {
    "test/",        "docs/",        "venv/",    ".tox/",  ".nox/", ".mypy_cache/",
    ".ruff_cache/", ".hypothesis/", "htmlcov/", "build/", "dist/", NULL};
static const char *const python_toolchain[] = {"python3", NULL};
/* lsb_release: pip (and ensurepip in python3 -m venv) asks it for the
 * system's name, for its user agent; Debian's is a sh script that runs
 * getopt (and cat, cut, tr of @coreutils). */
static const char *const python_binaries[] = {"@python", "lsb_release", "getopt", EVERYDAY, NULL};
static const char *const python_commands[] = {
    "python3 -m pytest", "python3 -m venv .venv",
    ".venv/bin/python -m pip install --no-index --find-links wheels/ NAME",
    ".venv/bin/python -m pytest", NULL};

static const char *const node_markers[] = {"package.json", NULL};
static const char *const node_always[] = {"src/", "node_modules/", "dist/", NULL};
/* Runtimes read their memory and CPU limits from the cgroup files at every
 * start (node; Rust's std for available_parallelism; go from 1.25): a
 * refused read is reported as blocked on every run. */
static const char *const cgroup_reads[] = {"/sys/fs/cgroup/", NULL};
static const char *const node_present[] = {"lib/",   "test/", "tests/",    "__tests__/", "docs/",
                                           "build/", "out/",  "coverage/", ".next/",     NULL};
static const char *const node_toolchain[] = {"node", "npm", NULL};
static const char *const node_binaries[] = {"@node", EVERYDAY, NULL};
static const char *const node_commands[] = {"npm test", "node scripts/build.js",
                                            "npm ci       (file: dependencies: see allow_network)",
                                            NULL};

static const char *const go_markers[] = {"go.mod", "go.work", NULL};
static const char *const go_toolchain[] = {"go", NULL};
/* go's own tools (compile, link, vet, ...) are added by path from
 * `go env GOTOOLDIR` (init_preset_policy.c). */
static const char *const go_binaries[] = {"go", "gcc", "cc", EVERYDAY, NULL};
static const char *const go_commands[] = {"go build ./...", "go test ./...", "go vet ./...", NULL};

static const char *const rust_markers[] = {"Cargo.toml", NULL};
static const char *const rust_toolchain[] = {"cargo", "rustc", NULL};
static const char *const rust_commands[] = {"cargo build --offline", "cargo test --offline", NULL};

static const char *const c_markers[] = {"Makefile",       "makefile", "GNUmakefile",
                                        "CMakeLists.txt", "*.c",      NULL};
static const char *const c_toolchain[] = {"cc", "make", NULL};
static const char *const c_binaries[] = {"@build", EVERYDAY, NULL};
static const char *const c_commands[] = {"make", "cc -Iinclude -o build/app src/*.c",
                                         "gcc -c src/x.c -o build/x.o", NULL};

static const struct pd_init_preset python = {
    .kind = PD_KIND_PYTHON,
    .name = "python",
    .title = "Python",
    .markers = python_markers,
    .try_cmd = "python3 -m pytest",
    .write_always = python_always,
    .write_present = python_present,
    .paths_doc =
        "Python: the sources and the tests (with their __pycache__/), pytest's cache and the\n"
        "virtual environment (python3 -m venv .venv); the folders that held packages, tool\n"
        "caches or builds when this file was written are listed too. Files at the top of the\n"
        "project (pyproject.toml, .coverage) are not writable: add \".\" for those.",
    .read_doc = "A folder of wheels outside the project goes here, for\n"
                "pip install --no-index --find-links ~/wheels NAME.",
    .network_doc = "pip installs from local wheels alone:\n"
                   "  .venv/bin/python -m pip install --no-index --find-links wheels/ NAME\n"
                   "Install from PyPI outside Paldron, or in a run whose policy sets\n"
                   "allow_network = true. pip's cache is Paldron's cache folder for this\n"
                   "project (paldron cache path).",
    .binaries_doc =
        "\"@python\": python3, pip and what the standard library starts (uname, ldconfig, sh);\n"
        "lsb_release (and the getopt it runs): pip asks it for the system's name.\n"
        "A virtual environment's python (.venv/bin/python) is python3 itself; the scripts in\n"
        ".venv/bin are files a run can write, so run them through it: .venv/bin/python -m\n"
        "pytest, .venv/bin/python -m pip.",
    .toolchain = python_toolchain,
    .binaries = python_binaries,
    .timeout_sec = 300,
    .cpu_time_sec = 300,
    .timeout_doc = "A test suite or a pip install takes longer than one command.",
    .commands = python_commands,
};

static const struct pd_init_preset node = {
    .kind = PD_KIND_NODE,
    .name = "node",
    .title = "Node.js",
    .markers = node_markers,
    .try_cmd = "npm test",
    .write_always = node_always,
    .write_present = node_present,
    .paths_doc =
        "Node.js: the sources, node_modules/ (npm ci) and dist/ (the usual build output);\n"
        "the folders that held tests, other builds or coverage reports when this file was\n"
        "written are listed too. Files at the top of the project are not writable: npm\n"
        "install, which rewrites package.json and package-lock.json, needs \".\" here; npm ci\n"
        "and npm test do not.",
    .read_doc = "node reads its memory limit in /sys/fs/cgroup/ at every start. A folder of\n"
                "package tarballs outside the project goes here too.",
    .read_always = cgroup_reads,
    .network_doc =
        "npm ci and npm install fetch from the registry: run them outside Paldron, or in a\n"
        "run whose policy sets allow_network = true. With the network off they install what\n"
        "the lock file takes from file: tarballs and folders (\"tinydep\":\n"
        "\"file:vendor/tinydep-1.0.0.tgz\"). npm's update check, audit and funding lookups\n"
        "are turned off under paldron exec; its cache is Paldron's cache folder for this\n"
        "project (paldron cache path).",
    .binaries_doc = "\"@node\": node, npm, npx and sh for package scripts. The programs of\n"
                    "node_modules/.bin are scripts that run through node (their #! line), so\n"
                    "jest, tsc or eslint need no entry.",
    .toolchain = node_toolchain,
    .binaries = node_binaries,
    .timeout_sec = 300,
    .cpu_time_sec = 300,
    .timeout_doc = "A test suite or an npm ci takes longer than one command.",
    .commands = node_commands,
};

static const struct pd_init_preset go = {
    .kind = PD_KIND_GO,
    .name = "go",
    .title = "Go",
    .markers = go_markers,
    .try_cmd = "go test ./...",
    .whole_project = true,
    .paths_doc =
        "Go: the whole project. Packages live at the top of the module and in the folders\n"
        "below it, and go build writes its program at the top. go's build and module caches\n"
        "are Paldron's cache folder for this project (GOCACHE, GOMODCACHE; paldron cache\n"
        "path), kept between runs. To narrow it, list folders: [\"cmd/\", \"internal/\"].",
    .read_doc = "go reads its CPU limit in /sys/fs/cgroup/ (from go 1.25). Go modules of yours\n"
                "outside the project (replace ... => ../lib in go.mod) go here.",
    .read_always = cgroup_reads,
    .network_doc =
        "go stops at once on a module missing from its cache (GOPROXY=off under paldron\n"
        "exec): vendor the dependencies (go mod vendor, run outside Paldron), or fill the\n"
        "cache once in a run whose policy sets allow_network = true (go mod download).",
    .binaries_doc =
        "go, gcc for cgo, and go's own tools, which go starts by path (go env GOTOOLDIR).\n"
        "The programs go test and go run build start from go's work folder with no entry.",
    .toolchain = go_toolchain,
    .binaries = go_binaries,
    .timeout_sec = 600,
    .cpu_time_sec = 1200,
    .timeout_doc = "A first build compiles every dependency; go compiles on several threads.",
    .commands = go_commands,
};

static const struct pd_init_preset rust = {
    .kind = PD_KIND_RUST,
    .name = "rust",
    .title = "Rust",
    .markers = rust_markers,
    .try_cmd = "cargo test --offline",
    .whole_project = true,
    .paths_doc = "Rust: the whole project. cargo writes target/ and, at the top of the project,\n"
                 "Cargo.lock (on the first build and whenever a dependency changes). To narrow\n"
                 "it: [\"src/\", \"tests/\", \"benches/\", \"examples/\", \"target/\"] with\n"
                 "Cargo.lock up to date.",
    .read_doc = "cargo, rustc and the test programs read their CPU limit in /sys/fs/cgroup/.\n"
                "Crates of yours outside the project (path = \"../lib\" dependencies) go here.\n"
                "cargo's registry and rustup's toolchains are readable with no entry.",
    .read_always = cgroup_reads,
    .network_doc = "cargo works offline under paldron exec (CARGO_NET_OFFLINE=true): fetch the\n"
                   "dependencies outside Paldron first (cargo fetch); cargo build --offline\n"
                   "then reads them from ~/.cargo/registry, read-only. cargo's lock files there\n"
                   "(~/.cargo/.package-cache) are refused and reported as blocked; cargo goes\n"
                   "on without them.",
    .binaries_doc =
        "Empty: cargo test runs the test programs it builds (target/debug/deps/NAME-HASH,\n"
        "a new name with every build), and build scripts run the same way: a list would\n"
        "refuse them. With a list, cargo build works and cargo test does not.",
    .toolchain = rust_toolchain,
    .binaries = NULL,
    .timeout_sec = 900,
    .cpu_time_sec = 3600,
    .timeout_doc = "A first build compiles every crate; rustc compiles on several threads.",
    .commands = rust_commands,
};

static const struct pd_init_preset c = {
    .kind = PD_KIND_C,
    .name = "c",
    .title = "C",
    .markers = c_markers,
    .try_cmd = "make",
    .whole_project = true,
    .paths_doc =
        "C: the whole project. make and cc write each object next to its source (src/x.o)\n"
        "and the programs where the Makefile says (build/, the top of the project). To\n"
        "narrow it, list the folders of sources and output: [\"src/\", \"build/\"].",
    .read_doc = "Headers and libraries outside the project and the system folders\n"
                "(-I ~/include) go here.",
    .network_doc = "Builds that download (CMake FetchContent, submodules) do it outside\n"
                   "Paldron.",
    .binaries_doc =
        "\"@build\": make, cmake, ninja, cc, gcc, clang, binutils and the tools recipes use.\n"
        "The programs the build makes run only when listed, by path (\"build/app\"; the\n"
        "deny line names the entry to add), so that a compiled program cannot run unseen.",
    .toolchain = c_toolchain,
    .binaries = c_binaries,
    .timeout_sec = 600,
    .cpu_time_sec = 600,
    .timeout_doc = "A full build of a large project takes minutes.",
    .commands = c_commands,
};

/* Detection order: a Python or Go project often has a Makefile too. */
static const struct pd_init_preset *const presets[] = {&python, &node, &go, &rust, &c, NULL};

const struct pd_init_preset *pd_init_preset_find(const char *name)
{
    for (size_t k = 0; presets[k]; k++)
        if (strcmp(presets[k]->name, name) == 0)
            return presets[k];
    return NULL;
}

const struct pd_init_preset *const *pd_init_presets(void)
{
    return presets;
}

/* A regular file named like *suffix at the top of dir. */
static bool has_suffix_file(const char *dir, const char *suffix, char *found, size_t foundlen)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    size_t sl = strlen(suffix);
    bool hit = false;
    struct dirent *e;
    while (!hit && (e = readdir(d))) {
        size_t nl = strlen(e->d_name);
        if (nl <= sl || strcmp(e->d_name + nl - sl, suffix) != 0)
            continue;
        char p[PD_PATH_MAX];
        struct stat st;
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p && stat(p, &st) == 0 &&
            S_ISREG(st.st_mode)) {
            snprintf(found, foundlen, "%s", e->d_name);
            hit = true;
        }
    }
    closedir(d);
    return hit;
}

/* The first marker of p at the top of dir, into found. */
static bool marked(const struct pd_init_preset *p, const char *dir, char *found, size_t foundlen)
{
    for (size_t k = 0; p->markers[k]; k++) {
        const char *m = p->markers[k];
        if (m[0] == '*') {
            if (has_suffix_file(dir, m + 1, found, foundlen))
                return true;
            continue;
        }
        char path[PD_PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, m) < (int)sizeof path &&
            stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            snprintf(found, foundlen, "%s", m);
            return true;
        }
    }
    return false;
}

const struct pd_init_preset *pd_init_detect(const char *dir, char *marker, size_t markerlen,
                                            char *also, size_t alsolen)
{
    const struct pd_init_preset *first = NULL;
    size_t n = 0;
    marker[0] = also[0] = '\0';
    for (size_t k = 0; presets[k]; k++) {
        char found[256];
        if (!marked(presets[k], dir, found, sizeof found))
            continue;
        if (!first) {
            first = presets[k];
            snprintf(marker, markerlen, "%s", found);
        } else if (n < alsolen) {
            n += (size_t)snprintf(also + n, alsolen - n, "%s%s (%s)", n ? ", " : "",
                                  presets[k]->name, found);
        }
    }
    return first;
}
