"""Workloads: building C with make and cmake, an ASan build, Go. Each job
runs bare and under `paldron exec` (workload.py)."""


from workload import WorkloadTest, main

C_PROJECT = {
    "src/main.c": '#include <stdio.h>\n#include "util.h"\n'
                  'int main(void) { printf("sum=%d\\n", add(2, 3)); return 0; }\n',
    "src/util.c": '#include "util.h"\nint add(int a, int b) { return a + b; }\n',
    "src/util.h": "#ifndef UTIL_H\n#define UTIL_H\nint add(int a, int b);\n#endif\n",
    "Makefile": "CFLAGS ?= -O2 -g -Wall\n"
                "OBJS = build/main.o build/util.o\n"
                "app: $(OBJS)\n\t$(CC) $(CFLAGS) -o $@ $(OBJS)\n"
                "build/%.o: src/%.c src/util.h | build\n\t$(CC) $(CFLAGS) -Isrc -c -o $@ $<\n"
                "build:\n\tmkdir -p $@\n"
                "check: app\n\t./app > out.txt\n"
                "install: app\n\tinstall -d dist/bin\n\tinstall -m 0755 app dist/bin/app\n"
                "clean:\n\trm -rf build app\n"
                ".PHONY: check install clean\n",
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.13)\nproject(demo C)\n"
                      "add_library(util STATIC src/util.c)\n"
                      "target_include_directories(util PUBLIC src)\n"
                      "add_executable(app src/main.c)\ntarget_link_libraries(app util)\n"
                      "enable_testing()\nadd_test(NAME runs COMMAND app)\n"
                      "install(TARGETS app DESTINATION bin)\n",
}

CC = ["gcc", "cc", "as", "ld"]


class BuildWorkload(WorkloadTest):
    def test_make(self):
        self.files(C_PROJECT)
        ws = self.p()
        self.job("make -j2 > make.log\n"
                 "make check install > /dev/null\n"
                 "make clean > /dev/null\n"
                 "make -j2 app > /dev/null\n",
                 ["make", "mkdir", "install", "rm"] + CC + [ws + "/app"])

    def test_cmake(self):
        self.need("cmake")
        self.files(C_PROJECT)
        ws = self.p()
        self.job("cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null\n"
                 "cmake --build build -j2 > /dev/null\n"
                 "build/app > out.txt\n"
                 "cd build && ctest -Q && cd ..\n"
                 "cmake --install build --prefix \"$PWD/dist\" > /dev/null\n"
                 "cmake -S . -B build > /dev/null\n",          # reconfigure: mkdir of what exists
                 ["cmake", "ctest", "make", "uname", "ar", "ranlib"] + CC + [ws + "/build/app"],
                 # cmake's own logs and scratch names change run to run
                 ignore=("build/CMakeFiles/CMake*.log", "build/CMakeFiles/CMakeScratch*",
                         "build/Testing/Temporary/LastTest*.log", "build/CMakeFiles/*/CMakeDetermine*"),
                 volatile=("build/CMakeFiles/Progress*", "build/Testing/Temporary/*"))

    def test_asan_build_and_run(self):
        self.files({"asan.c": "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
                    "int main(void) {\n  char *p = malloc(64);\n  strcpy(p, \"asan ok\");\n"
                    "  puts(p);\n  free(p);\n  FILE *f = fopen(\"asan-out.txt\", \"w\");\n"
                    "  fprintf(f, \"%s\\n\", \"written\");\n  fclose(f);\n  return 0;\n}\n"})
        ws = self.p()
        # ASan's shadow memory is terabytes of writable mappings, which the
        # kernel counts as data: an ASan program needs the data limit lifted
        # (docs/policy.md, max_memory_mb)
        self.job("gcc -fsanitize=address -fno-omit-frame-pointer -g -O1 -o asan-app asan.c\n"
                 "./asan-app > out.txt\n",
                 CC + [ws + "/asan-app"], extra={"max_memory_mb": '"unlimited"'})

    def test_go_build_and_test(self):
        self.need("go")
        self.files({"go.mod": "module example.com/hello\n\ngo 1.19\n",
                    "main.go": 'package main\n\nimport "fmt"\n\n'
                               'func Greeting() string { return "hello, go" }\n\n'
                               "func main() { fmt.Println(Greeting()) }\n",
                    "main_test.go": 'package main\n\nimport "testing"\n\n'
                                    "func TestGreeting(t *testing.T) {\n"
                                    '\tif Greeting() != "hello, go" {\n\t\tt.Fatal(Greeting())\n\t}\n}\n'})
        ws = self.p()
        tools = "/usr/lib/go-1.19/pkg/tool/linux_amd64/"
        self.job("go build -o hello .\n"
                 "./hello > out.txt\n"
                 "go vet ./...\n"
                 "go test -count=1 ./...\n"
                 "echo tested > tested.txt\n",
                 ["go", "gcc"] + [tools + t for t in ("compile", "link", "asm", "vet", "buildid", "cgo")]
                 + [ws + "/hello"], timeout=600)


if __name__ == "__main__":
    main()
