// Opens a shared library on first use and looks up the functions a forwarding shim needs (CTesseract,
// CHeif): libraries that would otherwise be linked, and so loaded and relocated on every start, are
// opened only by the runs that use them.
#ifndef CLIBRARYLOADER_H
#define CLIBRARYLOADER_H

#include <pthread.h>
#include <stddef.h>

typedef struct {
    pthread_mutex_t lock;
    int state;                 // 0: not tried yet; 1: open with every function; 2: failed (see error)
    const char *file;          // the soname, e.g. "libtesseract.so.5"
    const char *package;       // the Debian package that ships it, for the error message
    const char *const *names;  // the functions to look up
    void **functions;          // where their addresses go, in the same order
    size_t count;
    char error[512];
} aload_library;

#define ALOAD_LIBRARY_INIT(file, package, names, functions, count) \
    {PTHREAD_MUTEX_INITIALIZER, 0, (file), (package), (names), (functions), (count), {0}}

// Declares, for an X-macro list of function names (LIST(X) expanding X(name) for each): their names, an
// index per function, the table of their addresses and `library`, the aload_library that fills it.
#define ALOAD_FORWARDING(LIST, file, package)                                                                   \
    static const char *const aload_names[] = {LIST(ALOAD_NAME_)};                                               \
    enum { LIST(ALOAD_INDEX_) aload_count };                                                                     \
    static void *aload_functions[aload_count];                                                                   \
    static aload_library library = ALOAD_LIBRARY_INIT(file, package, aload_names, aload_functions, aload_count);
#define ALOAD_NAME_(name) #name,
#define ALOAD_INDEX_(name) aload_index_##name,
// The library's own function `name` (after aload_error returned NULL), typed as the declaration of the
// same name that the forwarding file defines.
#define ALOAD_REAL(name) ((__typeof__(&name))aload_functions[aload_index_##name])

// NULL when the library is open and has every function (opened with RTLD_NOW | RTLD_LOCAL on the first
// call, once per process, thread-safe; never closed), else why not.
const char *aload_error(aload_library *library);

#endif
