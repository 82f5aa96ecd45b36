/* tests/preload/static_hello.c - a statically linked program: what
 * LD_PRELOAD cannot reach. Prints "static" and exits 0. */
#include <stdio.h>

int main(void)
{
    puts("static");
    return 0;
}
