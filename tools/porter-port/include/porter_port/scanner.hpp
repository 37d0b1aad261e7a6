// porter_port/scanner.hpp — find hand-written asynchronous-copy sites and pipelines in CUDA C++.
//
// The scanner reads tokens (porter_port/lexer.hpp), never lines: comments and ordinary strings are
// not code, the PTX inside `asm(...)` string literals (concatenated, also across macro
// stringification) is, macro bodies are scanned as definitions and their uses as calls.
//
// Sites and wrappers. A *primitive* is one use of an asynchronous-copy or pipeline construct of
// a known idiom (`idiom_names()`): an inline-asm `cp.async...` instruction, `__pipeline_commit()`,
// `cuda::memcpy_async(...)`, `pipe.producer_acquire()` on a `cuda::pipeline` variable, ...
// Primitives inside a `__global__` function (lambdas included) are *sites*. A named function that
// is not `__global__`, or a macro, whose body holds primitives is a *wrapper definition*: its
// primitives are reported as wrapper contents, not as sites, and each call of the wrapper from a
// kernel is a site (role "call"). Wrappers of wrappers are wrappers too. A wrapper is visible to
// calls in its own file and in the scanned files that include its file (#include paths matched by
// suffix), so a header of instruction wrappers (porter's backends/isa/ptx) gives no site at all.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace porter_port {

/// One file to scan: the path it is reported under and its whole text.
struct source_file {
  std::string path;
  std::string text;
};

/// One primitive or wrapper call. Fields that the scanner could not infer are "" (text output
/// omits them, JSON writes null).
struct site {
  std::string file;
  int line = 0;
  int column = 0;
  std::string idiom;       ///< one of idiom_names()
  std::string role;        ///< copy, bulk-copy, tensor-copy, bulk-store, commit, wait, wait-parity, acquire, release, init, expect-tx, arrive, fence, state, call
  std::string construct;   ///< what is written: "cp.async.cg.shared.global", "__pipeline_commit", "pipe.producer_acquire", ...
  std::string function;    ///< the enclosing function or macro ("" at file scope)
  bool in_wrapper = false; ///< the primitive sits in a wrapper definition (not a site)
  std::string via;         ///< role "call": the wrapper called
  std::string via_at;      ///< role "call": where the wrapper is defined (file:line)
  std::string bytes;       ///< bytes per copy (a number or an expression)
  std::string zero_fill;   ///< yes (how) / no
  std::string alignment;   ///< what the code guarantees or requires
  std::string completion;  ///< how the copy completes
  std::string stages;      ///< stage count of the enclosing pipeline (a number or an expression)
  std::string count;       ///< wait: the pending-group count or parity expression as written
  std::string porter;      ///< the porter construct that replaces it
};

/// A hazard: something in the code that porter's tokens or copies make impossible.
struct hazard {
  std::string file;
  int line = 0;
  std::string id;       ///< one of hazard_names()
  std::string function; ///< enclosing function or macro
  std::string message;  ///< one sentence with the values seen
  std::string fix;      ///< what porter does instead
};

/// A wrapper definition: a function or macro that holds primitives (or calls to wrappers).
struct wrapper {
  std::string file;
  int line = 0;
  std::string name;
  bool macro = false;
  std::vector<std::string> idioms;  ///< idioms of what it wraps, in order of first appearance
  std::vector<std::string> roles;   ///< roles of what it wraps, in order of first appearance
};

/// Everything a scan found.
struct report {
  std::vector<std::string> files;    ///< the files scanned, as given
  std::vector<site> sites;           ///< in kernels: what a port rewrites (file, line order)
  std::vector<site> wrapped;         ///< the primitives inside wrapper definitions
  std::vector<wrapper> wrappers;
  std::vector<hazard> hazards;
  std::vector<std::string> warnings; ///< lexer diagnostics ("file:line: message")
};

/// Scan `files` together (wrappers defined in one are seen by the others that include it).
report scan(const std::vector<source_file>& files);

/// The idiom names the scanner reports: asm-cp-async, asm-tma, pipeline-primitives,
/// cuda-pipeline, cuda-barrier, cuda-tma, cooperative-groups, cutlass.
const std::vector<std::string>& idiom_names();

/// The hazard names: parity-from-loop-counter, wait-count-mismatch, generic-store-before-bulk-copy,
/// generic-read-before-bulk-refill, untyped-memcpy-async, generic-wmma-load-of-shared
/// (docs/porting.md, "Hazards", says what each one sees).
const std::vector<std::string>& hazard_names();

/// The report as text: one block per site, then hazards, then wrapper definitions. `wrapped`:
/// also list the primitives inside wrapper definitions.
std::string to_text(const report& r, bool wrapped);

/// The report as one JSON object (schema in docs/porting.md, "porter-port's output").
std::string to_json(const report& r);

}  // namespace porter_port
