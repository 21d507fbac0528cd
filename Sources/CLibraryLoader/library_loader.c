#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>

// 1 when the library is open with every function, else 2 with the reason in library->error.
static int open_library(aload_library *library) {
    // RTLD_LOCAL: its symbols serve these lookups only (dlsym on the handle also searches the libraries
    // it needs). Never closed: the libraries keep process-wide state.
    void *handle = dlopen(library->file, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(library->error, sizeof library->error, "%s cannot be loaded: %s; on Debian 12: apt install %s", library->file,
                 reason ? reason : "not found", library->package);
        return 2;
    }
    for (size_t i = 0; i < library->count; i++) {
        library->functions[i] = dlsym(handle, library->names[i]);
        if (!library->functions[i]) {
            snprintf(library->error, sizeof library->error, "%s lacks %s (another version than %s's?)", library->file,
                     library->names[i], library->package);
            return 2;
        }
    }
    return 1;
}

const char *aload_error(aload_library *library) {
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&library->lock);
        state = library->state;
        if (state == 0) {
            state = open_library(library);
            __atomic_store_n(&library->state, state, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&library->lock);
    }
    return state == 1 ? NULL : library->error;
}
