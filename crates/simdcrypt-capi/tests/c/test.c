/* The C ABI from C: known vectors through the header and the built library.
 * Built and run by scripts/test-bindings.sh; argument 1 is the repository's
 * test-vectors directory (for the BLAKE3 vectors). */
#include "simdcrypt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, " (last error: %s)\n", simdcrypt_last_error()); \
            failures++;                                                    \
        }                                                                  \
    } while (0)

static void to_hex(const uint8_t *bytes, size_t len, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = 0;
}

static void check_hash(const char *algorithm, const uint8_t *data, size_t len, const char *want_hex) {
    uint8_t out[256];
    char hex[513];
    size_t out_len = strlen(want_hex) / 2;
    int rc = simdcrypt_hash(algorithm, data, len, out, out_len);
    CHECK(rc == SIMDCRYPT_STATUS_OK, "%s returned %d", algorithm, rc);
    to_hex(out, out_len, hex);
    CHECK(strcmp(hex, want_hex) == 0, "%s: got %s, want %s", algorithm, hex, want_hex);
}

/* The official BLAKE3 vectors: a tiny scanner over test_vectors.json's fixed layout
 * ("input_len": N, "hash": "HEX", ...), enough to read the hash field of every case. */
static void blake3_vectors(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/blake3.json", dir);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *json = malloc((size_t)size + 1);
    size_t got = fread(json, 1, (size_t)size, f);
    fclose(f);
    json[got] = 0;
    int cases = 0;
    for (char *p = strstr(json, "\"input_len\""); p; p = strstr(p + 1, "\"input_len\"")) {
        size_t len = strtoul(strchr(p, ':') + 1, NULL, 10);
        char *h = strstr(p, "\"hash\"");
        char *start = strchr(strchr(h, ':'), '"') + 1;
        char *end = strchr(start, '"');
        size_t hex_len = (size_t)(end - start);
        char want[1024];
        memcpy(want, start, hex_len);
        want[hex_len] = 0;
        uint8_t *input = malloc(len + 1);
        for (size_t i = 0; i < len; i++) input[i] = (uint8_t)(i % 251);
        check_hash("blake3", input, len, want);
        /* The streaming handle gives the same, fed in two pieces. */
        simdcrypt_hasher *h3 = NULL;
        CHECK(simdcrypt_hasher_new("blake3", NULL, &h3) == SIMDCRYPT_STATUS_OK, "hasher_new");
        simdcrypt_hasher_update(h3, input, len / 3);
        simdcrypt_hasher_update(h3, input + len / 3, len - len / 3);
        uint8_t out[512];
        char hex[1025];
        CHECK(simdcrypt_hasher_finalize(h3, out, hex_len / 2) == SIMDCRYPT_STATUS_OK, "finalize");
        to_hex(out, hex_len / 2, hex);
        CHECK(strcmp(hex, want) == 0, "streaming blake3 len %zu", len);
        simdcrypt_hasher_free(h3);
        free(input);
        cases++;
    }
    CHECK(cases > 20, "read only %d BLAKE3 cases", cases);
    printf("C: %d BLAKE3 vectors\n", cases);
    free(json);
}

int main(int argc, char **argv) {
    const char *vectors = argc > 1 ? argv[1] : "test-vectors";
    printf("C: simdcrypt %s, %zu algorithms\n", simdcrypt_version(), simdcrypt_algorithm_count());

    /* FIPS 180-2 "abc". */
    check_hash("sha256", (const uint8_t *)"abc", 3,
               "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    /* GOST R 34.11-2012 example M1 (the 63-byte "012345...") for both sizes. */
    const char *m1 = "012345678901234567890123456789012345678901234567890123456789012";
    check_hash("streebog512", (const uint8_t *)m1, 63,
               "1b54d01a4af5b9d5cc3d86d68d285462b19abc2475222f35c085122be4ba1ffa"
               "00ad30f8767b3a82384c6574f024c311e2a481332b08ef7f41797891c1646f48");
    check_hash("streebog256", (const uint8_t *)m1, 63,
               "9d151eefd8590b89daa6ba6cb74af9275dd051026bb149a452fd84e5e57b5500");
    blake3_vectors(vectors);

    /* hashtree's contract: a zero block hashes to f5a5fd42... (SHA-256 of 64 zero bytes). */
    uint8_t blocks[128] = {0};
    uint8_t digests[64];
    simdcrypt_sha256_many(digests, blocks, 2);
    char hex[129];
    to_hex(digests + 32, 32, hex);
    CHECK(strcmp(hex, "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b") == 0,
          "sha256_many: %s", hex);
    /* Merkle root of two zero leaves is that same digest. */
    uint8_t root[32];
    CHECK(simdcrypt_merkle_root(root, blocks, 2, -1, 1) == SIMDCRYPT_STATUS_OK, "merkle_root");
    CHECK(memcmp(root, digests, 32) == 0, "merkle root of two zero leaves");

    /* Errors: a status code and a message. */
    uint8_t out[32];
    int rc = simdcrypt_hash("md5", (const uint8_t *)"abc", 3, out, 16);
    CHECK(rc == SIMDCRYPT_STATUS_INVALID_ARGUMENT, "unknown algorithm gave %d", rc);
    CHECK(strstr(simdcrypt_last_error(), "unknown algorithm") != NULL, "message");
    rc = simdcrypt_hash("sha256", NULL, 3, out, 32);
    CHECK(rc == SIMDCRYPT_STATUS_NULL_POINTER, "NULL data gave %d", rc);
    rc = simdcrypt_hash("highwayhash64", (const uint8_t *)"abc", 3, out, 8);
    CHECK(rc == SIMDCRYPT_STATUS_INVALID_ARGUMENT, "highwayhash without a key gave %d", rc);

    /* Keyed BLAKE3 through the options struct, and secretbox round trip + forgery. */
    uint8_t key[32];
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
    simdcrypt_options opts = {0};
    opts.key = key;
    opts.key_len = sizeof key;
    CHECK(simdcrypt_hash_with("blake3", &opts, (const uint8_t *)"abc", 3, out, 32) == SIMDCRYPT_STATUS_OK, "keyed");
    uint8_t nonce[24] = {1};
    const char *msg = "attack at dawn";
    uint8_t boxed[14 + 16], opened[14];
    CHECK(simdcrypt_secretbox_seal(boxed, sizeof boxed, (const uint8_t *)msg, 14, key, nonce) == 0, "seal");
    CHECK(simdcrypt_secretbox_open(opened, 14, boxed, sizeof boxed, key, nonce) == 0, "open");
    CHECK(memcmp(opened, msg, 14) == 0, "round trip");
    boxed[20] ^= 1;
    rc = simdcrypt_secretbox_open(opened, 14, boxed, sizeof boxed, key, nonce);
    CHECK(rc == SIMDCRYPT_STATUS_AUTHENTICATION_FAILED, "forged box gave %d", rc);

    if (failures) {
        fprintf(stderr, "C: %d failures\n", failures);
        return 1;
    }
    printf("C: all checks passed\n");
    return 0;
}
