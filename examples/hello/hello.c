/* The README's example as a standalone program: a sum and a prefix sum of 1000 halves, on whatever backend
 * REDSCAN_BACKEND picks. Built against an installed redscan (examples/hello/CMakeLists.txt, or
 * cc hello.c $(pkg-config --cflags --libs redscan)). Exit status 0 only when both results are right. */
#include <stdio.h>
#include <redscan.h>

int main(void)
{
    float x[1000], prefix[1000], sum = 0;
    for (int i = 0; i < 1000; ++i) x[i] = 0.5f;
    redscan_ctx *ctx = NULL;
    redscan_status s = redscan_create(&ctx, REDSCAN_BACKEND_AUTO); /* REDSCAN_BACKEND decides */
    if (s != REDSCAN_OK) { /* ctx NULL: the thread's last create error */
        fprintf(stderr, "redscan: %s: %s\n", redscan_status_string(s), redscan_last_error(NULL));
        return 1;
    }
    s = redscan_reduce_host(ctx, REDSCAN_SUM, REDSCAN_FLOAT32, x, 1000, &sum);
    if (s == REDSCAN_OK) s = redscan_scan_host(ctx, REDSCAN_SUM, REDSCAN_FLOAT32, 0 /* inclusive */, x, prefix, 1000);
    if (s != REDSCAN_OK)
        fprintf(stderr, "redscan: %s: %s\n", redscan_status_string(s), redscan_last_error(ctx));
    else
        printf("%s on %s: sum %g, prefix[999] %g\n", redscan_backend_name(ctx), redscan_device_name(ctx), sum, prefix[999]);
    redscan_destroy(ctx);
    return s != REDSCAN_OK || sum != 500.0f || prefix[999] != 500.0f;
}
