/* A shared object without the SAI entry points, for the ALPHAD_E_SYMBOL test. */
__attribute__((visibility("default"))) int alphad_test_not_a_libsai(void);
int alphad_test_not_a_libsai(void)
{
    return 42;
}
