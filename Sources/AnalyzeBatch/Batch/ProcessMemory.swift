import AnalyzeCore
import AnalyzeOutput

#if os(Linux)
    import Glibc
#endif

/// Process memory housekeeping for long batches.
enum ProcessMemory {
    /// Returns free heap pages to the system (glibc's `malloc_trim(0)`) when the process's malloc is
    /// glibc's: decoded images are large, short-lived allocations, and without this the resident size
    /// keeps the high-water mark of every malloc arena that ever held one.
    ///
    /// Under another malloc (the `analyze` executable links tcmalloc, which keeps freed pages for the
    /// next image and returns them at its own rate) it does nothing. glibc's `malloc_trim` would then
    /// work on a heap glibc never set up, and the first two calls, made by two workers at the same
    /// moment, race in its set-up: one thread marks the heap initialised before its bins are, the other
    /// walks the bins and dereferences a null pointer (seen once in the test suite: SIGSEGV in
    /// `malloc_trim`, the other worker waiting on the arena's lock).
    static func releaseFreePages() {
        #if os(Linux)
            if mallocIsGlibcs { _ = glibcMallocTrim(0) }
        #endif
    }

    /// Whether `malloc` in this process is glibc's own: the `malloc` the dynamic linker resolves for the
    /// program is the one libc.so.6 defines (not tcmalloc's, jemalloc's or a preloaded one's).
    /// Computed once.
    static let mallocIsGlibcs: Bool = {
        #if os(Linux)
            guard let libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD) else { return false }
            defer { dlclose(libc) }
            guard let own = dlsym(libc, "malloc"), let used = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc")
            else { return false }
            return own == used
        #else
            return false
        #endif
    }()
}

#if os(Linux)
    /// glibc's `int malloc_trim(size_t pad)` from <malloc.h>, which Swift's Glibc module does not export.
    @_silgen_name("malloc_trim")
    private func glibcMallocTrim(_ pad: Int) -> Int32
#endif
