/// Process memory housekeeping for long batches.
enum ProcessMemory {
    /// Returns free heap pages to the system (glibc's `malloc_trim(0)`): decoded images are
    /// large, short-lived allocations, and without this the resident size keeps the high-water
    /// mark of every malloc arena that ever held one. In the `analyze` executable, which links
    /// tcmalloc, glibc's heap is all but empty and this costs nothing: tcmalloc keeps freed pages
    /// for the next image (no page faults, no zeroing) and returns them to the system at its own rate.
    static func releaseFreePages() {
        #if os(Linux)
        _ = glibcMallocTrim(0)
        #endif
    }
}

#if os(Linux)
/// glibc's `int malloc_trim(size_t pad)` from <malloc.h>, which Swift's Glibc module does not export.
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
#endif
