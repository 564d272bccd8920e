// Keeps FluidSynth's OpenMP regions from allocating on the audio render thread.
//
// Debian builds libfluidsynth with OpenMP: its reverb and chorus run inside
// `#pragma omp parallel num_threads(fx_units)` once per 64-frame block, one thread with the default single
// effects unit. libgomp allocates (and frees) a team descriptor for every one-thread region, so each
// rendered block would call malloc on the render thread.
//
// seqplay_openmp_route_fluidsynth_regions() points libfluidsynth's own import slot for GOMP_parallel (the
// entry point the compiler emits for `#pragma omp parallel`) at inline_or_libgomp_parallel: a region asked
// to run on exactly one thread runs its body inline, which OpenMP defines as equivalent (worksharing,
// barrier, single and task constructs outside a team behave as in a team of one, and libgomp implements
// them so). Every other region goes to libgomp's GOMP_parallel unchanged. Only libfluidsynth's slot
// changes (no symbol of the program is interposed), so no linker flag is needed and the library works
// in any program that depends on it.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "FluidSynthOpenMP.h"

typedef void (*gomp_parallel_function)(void (*)(void *), void *, unsigned, unsigned);

static gomp_parallel_function libgomp_parallel;
static _Atomic int inline_regions;
static int routed_slots;

static void inline_or_libgomp_parallel(void (*body)(void *), void *data, unsigned num_threads, unsigned flags) {
    if (num_threads == 1) {
        atomic_store_explicit(&inline_regions, 1, memory_order_relaxed);
        body(data);
        return;
    }
    libgomp_parallel(body, data, num_threads, flags);
}

/// Whether `address` lies in the object's read-only-after-relocation segment.
static int in_relro(const struct dl_phdr_info *info, uintptr_t address) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_GNU_RELRO) continue;
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        if (address >= start && address < start + segment->p_memsz) return 1;
    }
    return 0;
}

/// Writes `value` into the import slot at `address` (made writable for the write when it is RELRO).
static void write_slot(const struct dl_phdr_info *info, uintptr_t address, void *value) {
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t pageStart = address & ~(uintptr_t)(page - 1);
    int relro = in_relro(info, address);
    if (relro && mprotect((void *)pageStart, (size_t)page, PROT_READ | PROT_WRITE) != 0) return;
    *(void **)address = value;
    routed_slots++;
    if (relro) mprotect((void *)pageStart, (size_t)page, PROT_READ);
}

/// Redirects every relocation of `table` (`size` bytes of Elf Rela entries) that binds GOMP_parallel.
static void route_table(const struct dl_phdr_info *info, const ElfW(Rela) *table, size_t size,
                        const ElfW(Sym) *symbols, const char *names) {
    for (size_t i = 0; i < size / sizeof(ElfW(Rela)); i++) {
        size_t symbol = ELF64_R_SYM(table[i].r_info);
        if (symbol == 0 || strcmp(names + symbols[symbol].st_name, "GOMP_parallel") != 0) continue;
        write_slot(info, info->dlpi_addr + table[i].r_offset, (void *)inline_or_libgomp_parallel);
    }
}

/// glibc relocates the address entries of a loaded object's dynamic section; other loaders may not.
static uintptr_t dynamic_address(const struct dl_phdr_info *info, ElfW(Addr) value) {
    return value < info->dlpi_addr ? info->dlpi_addr + value : value;
}

static int route_object(struct dl_phdr_info *info, size_t size, void *unused) {
    (void)size; (void)unused;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libfluidsynth.so")) return 0;
    const ElfW(Dyn) *dynamic = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    }
    if (!dynamic) return 0;
    const ElfW(Sym) *symbols = NULL;
    const char *names = NULL;
    const ElfW(Rela) *plt = NULL, *data = NULL;
    size_t pltSize = 0, dataSize = 0;
    int pltIsRela = 1;
    for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
        switch (entry->d_tag) {
        case DT_SYMTAB: symbols = (const ElfW(Sym) *)dynamic_address(info, entry->d_un.d_ptr); break;
        case DT_STRTAB: names = (const char *)dynamic_address(info, entry->d_un.d_ptr); break;
        case DT_JMPREL: plt = (const ElfW(Rela) *)dynamic_address(info, entry->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltSize = entry->d_un.d_val; break;
        case DT_PLTREL: pltIsRela = entry->d_un.d_val == DT_RELA; break;
        case DT_RELA: data = (const ElfW(Rela) *)dynamic_address(info, entry->d_un.d_ptr); break;
        case DT_RELASZ: dataSize = entry->d_un.d_val; break;
        }
    }
    if (!symbols || !names || !pltIsRela) return 0;
    if (plt) route_table(info, plt, pltSize, symbols, names);
    if (data) route_table(info, data, dataSize, symbols, names);
    return 1;
}

static void route_once(void) {
    libgomp_parallel = (gomp_parallel_function)dlsym(RTLD_DEFAULT, "GOMP_parallel");
    if (!libgomp_parallel) return; // libfluidsynth built without OpenMP: nothing to route
    dl_iterate_phdr(route_object, NULL);
}

int seqplay_openmp_route_fluidsynth_regions(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, route_once);
    return routed_slots;
}

int seqplay_openmp_inline_regions_active(void) {
    return atomic_load_explicit(&inline_regions, memory_order_relaxed);
}
