// tests/port/porter_port_test.cpp — porter-port: the lexer, every idiom and hazard on the fixtures
// (positive and negative), the bench baselines against a hand-counted list, porter's own library
// sources (wrappers, no site), the JSON output parsed back, and the command line's exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "porter_port/lexer.hpp"
#include "porter_port/scanner.hpp"

namespace fs = std::filesystem;
using porter_port::lex;
using porter_port::scan;
using porter_port::source_file;
using porter_port::tok;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Every scannable file under `dir` (or `dir` itself), paths relative to `base`.
std::vector<source_file> files_under(const fs::path& dir, const fs::path& base) {
  std::vector<source_file> out;
  auto add = [&](const fs::path& p) {
    static const std::set<std::string> exts = {".cu", ".cuh", ".cpp", ".hpp", ".h", ".inl"};
    if (exts.count(p.extension().string())) out.push_back({fs::relative(p, base).generic_string(), slurp(p)});
  };
  if (fs::is_directory(dir)) {
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file()) add(e.path());
  } else {
    add(dir);
  }
  std::sort(out.begin(), out.end(), [](const source_file& a, const source_file& b) { return a.path < b.path; });
  return out;
}

/// Annotations of a fixture: "expect: idiom role[, idiom role]", "hazard: id", "wrapper: name".
struct expected {
  std::multiset<std::string> sites, hazards, wrappers;  // "file:line idiom role", "file:line id", "file:line name"
};

expected annotations(const std::vector<source_file>& files) {
  expected e;
  const std::regex item(R"((expect|hazard|wrapper):\s*([^*/]*?)(?=\s*(?:expect:|hazard:|wrapper:|\*/|$)))");
  for (const auto& f : files) {
    std::istringstream in(f.text);
    int line = 0;
    for (std::string s; std::getline(in, s);) {
      ++line;
      const auto at = f.path + ":" + std::to_string(line) + " ";
      for (auto it = std::sregex_iterator(s.begin(), s.end(), item); it != std::sregex_iterator(); ++it) {
        const std::string kind = (*it)[1], body = (*it)[2];
        std::istringstream parts(body);
        for (std::string one; std::getline(parts, one, ',');) {
          one.erase(0, one.find_first_not_of(' '));
          one.erase(one.find_last_not_of(' ') + 1);
          if (one.empty()) continue;
          (kind == "expect" ? e.sites : kind == "hazard" ? e.hazards : e.wrappers).insert(at + one);
        }
      }
    }
  }
  return e;
}

expected found(const porter_port::report& r) {
  expected e;
  for (const auto& s : r.sites) e.sites.insert(s.file + ":" + std::to_string(s.line) + " " + s.idiom + " " + s.role);
  for (const auto& h : r.hazards) e.hazards.insert(h.file + ":" + std::to_string(h.line) + " " + h.id);
  for (const auto& w : r.wrappers) e.wrappers.insert(w.file + ":" + std::to_string(w.line) + " " + w.name);
  return e;
}

std::string show(const std::multiset<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "  " + x + "\n";
  return s;
}

/// Scan a fixture (file or folder) and compare with its annotations, exactly.
void check_fixture(const std::string& name) {
  const fs::path root = PORTER_PORT_FIXTURES;
  const auto files = files_under(root / name, root);
  ASSERT_FALSE(files.empty()) << name;
  const auto want = annotations(files);
  const auto got = found(scan(files));
  EXPECT_EQ(got.sites, want.sites) << "sites found:\n" << show(got.sites) << "expected:\n" << show(want.sites);
  EXPECT_EQ(got.hazards, want.hazards) << "hazards found:\n" << show(got.hazards) << "expected:\n" << show(want.hazards);
  for (const auto& w : want.wrappers) EXPECT_EQ(got.wrappers.count(w), 1u) << "wrapper not found: " << w << "\n" << show(got.wrappers);
}

}  // namespace

// ---- the lexer -------------------------------------------------------------------------------------

TEST(Lexer, CommentsAreNotTokensAndSplicedLineCommentsRunOn) {
  const auto l = lex("a // b \\\n c\n d /* e \n f */ g");
  std::vector<std::string> t;
  for (const auto& k : l.tokens) t.push_back(k.text);
  EXPECT_EQ(t, (std::vector<std::string>{"a", "d", "g"}));
  EXPECT_EQ(l.tokens[1].line, 3);
  EXPECT_EQ(l.tokens[2].line, 4);
}

TEST(Lexer, SpliceInsideAnIdentifierKeepsItsFirstLine) {
  const auto l = lex("x;\n__pipeline_\\\ncommit();");
  ASSERT_GE(l.tokens.size(), 3u);
  EXPECT_EQ(l.tokens[2].text, "__pipeline_commit");
  EXPECT_EQ(l.tokens[2].line, 2);
}

TEST(Lexer, StringsCharactersAndRawStrings) {
  const auto l = lex(R"x(s = "a \"q\" b"; c = '"'; r = R"d(x )" y)d"; u = u8R"(z)"; w = L"w";)x");
  std::vector<std::pair<tok, std::string>> lits;
  for (const auto& k : l.tokens)
    if (k.kind == tok::string || k.kind == tok::character) lits.push_back({k.kind, k.value});
  ASSERT_EQ(lits.size(), 5u);
  EXPECT_EQ(lits[0].second, "a \"q\" b");
  EXPECT_EQ(lits[1].first, tok::character);
  EXPECT_EQ(lits[1].second, "\"");
  EXPECT_EQ(lits[2].second, "x )\" y");
  EXPECT_EQ(lits[3].second, "z");
  EXPECT_EQ(lits[4].second, "w");
  EXPECT_TRUE(l.diagnostics.empty());
}

TEST(Lexer, DigitSeparatorsStayInTheNumber) {
  const auto l = lex("n = 1'000'000; c = 'x';");
  ASSERT_GE(l.tokens.size(), 3u);
  EXPECT_EQ(l.tokens[2].text, "1'000'000");
  EXPECT_EQ(l.tokens[2].kind, tok::number);
  EXPECT_EQ(l.tokens[6].kind, tok::character);
}

TEST(Lexer, DirectivesRunToTheEndOfTheLogicalLine) {
  const auto l = lex("#define M(x) \\\n  asm(\"cp.async.commit_group;\")\nint y;\n#include <cuda/pipeline>\n  # pragma once\n");
  ASSERT_EQ(l.directives.size(), 3u);
  EXPECT_EQ(l.directives[0].name, "define");
  EXPECT_EQ(l.directives[1].name, "include");
  EXPECT_EQ(l.directives[2].name, "pragma");
  int outside = 0;
  for (const auto& k : l.tokens) outside += k.directive < 0;
  EXPECT_EQ(outside, 3);  // int y ;
  bool header = false;
  for (const auto& k : l.tokens) header |= k.kind == tok::header_name && k.value == "cuda/pipeline";
  EXPECT_TRUE(header);
}

TEST(Lexer, UnterminatedCommentIsADiagnosticNotACrash) {
  const auto l = lex("a /* never closed");
  EXPECT_EQ(l.tokens.size(), 1u);
  EXPECT_EQ(l.diagnostics.size(), 1u);
}

// ---- every idiom and hazard, positive and negative ------------------------------------------------------

TEST(Fixtures, InlineAsmCpAsync) { check_fixture("asm_cp_async.cu"); }
TEST(Fixtures, InlineAsmTma) { check_fixture("asm_tma.cu"); }
TEST(Fixtures, PipelinePrimitives) { check_fixture("pipeline_primitives.cu"); }
TEST(Fixtures, CudaPipelineAndPortersOwnPipelineIsNoSite) { check_fixture("cuda_pipeline.cu"); }
TEST(Fixtures, CudaBarrierAndASyncOnlyBarrierIsNoSite) { check_fixture("cuda_barrier.cu"); }
TEST(Fixtures, CudaTmaParityAndProxyFenceHazards) { check_fixture("cuda_tma.cu"); }
TEST(Fixtures, CooperativeGroupsAndUntypedMemcpyAsync) { check_fixture("cooperative_groups.cu"); }
TEST(Fixtures, GenericReadsOfABulkFilledStageNeedAProxyFenceBeforeTheRelease) { check_fixture("proxy_read.cu"); }
TEST(Fixtures, ProxyReadsThroughLambdaArgumentsAndReleasesThroughLambdasAndMembers) { check_fixture("proxy_indirect.cu"); }
TEST(Fixtures, RegionsOfOneExternSharedArrayAreToldApart) { check_fixture("smem_regions.cu"); }
// nvcuda::wmma operand loads of shared memory (generic wmma.load under nvcc 13); porter's, an
// accumulator load and a load of global memory are not reported.
TEST(Fixtures, WmmaOperandLoadsOfSharedMemoryAreGeneric) { check_fixture("wmma_shared.cu"); }
TEST(Fixtures, CudaPtxCalledUnqualifiedUnderAUsingDirective) { check_fixture("cuda_tma_using.cu"); }
TEST(Fixtures, CutlassAndCuteNames) { check_fixture("cutlass.cu"); }
TEST(Fixtures, CommentsStringsMacrosContinuations) { check_fixture("lexer_cases.cu"); }
TEST(Fixtures, WaitCountAgainstStageCount) { check_fixture("wait_count.cu"); }
TEST(Fixtures, WrappersInAnIncludedHeader) { check_fixture("wrappers"); }

TEST(Fixtures, EveryIdiomAndHazardIsCovered) {
  const fs::path root = PORTER_PORT_FIXTURES;
  const auto r = scan(files_under(root, root));
  std::set<std::string> idioms, hazards;
  for (const auto& s : r.sites) idioms.insert(s.idiom);
  for (const auto& h : r.hazards) hazards.insert(h.id);
  for (const auto& i : porter_port::idiom_names()) EXPECT_TRUE(idioms.count(i)) << "no fixture site of idiom " << i;
  for (const auto& h : porter_port::hazard_names()) EXPECT_TRUE(hazards.count(h)) << "no fixture of hazard " << h;
}

// ---- porter's bench baselines: every site, against a list counted by hand -------------------------------

TEST(Baselines, EverySiteOfTheHandWrittenPipelines) {
  const fs::path src = PORTER_SOURCE_DIR;
  std::vector<source_file> files;
  for (const auto& e : fs::directory_iterator(src / "bench/baselines"))
    if (e.path().extension() == ".cu") files.push_back({fs::relative(e.path(), src).generic_string(), slurp(e.path())});
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  const auto got = found(scan(files));
  // Read from the files: manual_cp_async.cu's kernels call manual_pipeline (a wrapper of
  // __pipeline_commit / __pipeline_wait_prior, line 29) and issue __pipeline_memcpy_async;
  // manual_cuda_pipeline.cu is one cuda::pipeline kernel; manual_tma.cu's kernels call its cuda::ptx
  // wrappers (init_full_barriers 76, arrive_expect_tx 88, wait_full 98, bulk_g2s 105,
  // tensor_g2s_2d 116) and tma_pipeline (128, which calls wait_full); the sgemm kernels use the
  // wrappers at S = 1 and a loop of their own otherwise. cub_stream.cu has none.
  const std::multiset<std::string> want = {
      "bench/baselines/manual_cp_async.cu:62 pipeline-primitives call",
      "bench/baselines/manual_cp_async.cu:72 pipeline-primitives copy",
      "bench/baselines/manual_cp_async.cu:89 pipeline-primitives call",
      "bench/baselines/manual_cp_async.cu:98 pipeline-primitives copy",
      "bench/baselines/manual_cp_async.cu:137 pipeline-primitives copy",  // pb_manual_sgemm: its issue lambda
      "bench/baselines/manual_cp_async.cu:138 pipeline-primitives copy",
      "bench/baselines/manual_cp_async.cu:162 pipeline-primitives call",  // S = 1: manual_pipeline<1>
      "bench/baselines/manual_cp_async.cu:166 pipeline-primitives commit",  // S > 1: its own loop
      "bench/baselines/manual_cp_async.cu:168 pipeline-primitives wait",
      "bench/baselines/manual_cp_async.cu:173 pipeline-primitives wait",
      "bench/baselines/manual_cp_async.cu:176 pipeline-primitives commit",
      "bench/baselines/manual_cp_async.cu:203 pipeline-primitives call",
      "bench/baselines/manual_cp_async.cu:211 pipeline-primitives copy",
      "bench/baselines/manual_cp_async.cu:212 pipeline-primitives copy",
      "bench/baselines/manual_cuda_pipeline.cu:51 cuda-pipeline state",
      "bench/baselines/manual_cuda_pipeline.cu:54 cuda-pipeline state",
      "bench/baselines/manual_cuda_pipeline.cu:65 cuda-pipeline acquire",
      "bench/baselines/manual_cuda_pipeline.cu:68 cuda-pipeline copy",
      "bench/baselines/manual_cuda_pipeline.cu:69 cuda-pipeline copy",
      "bench/baselines/manual_cuda_pipeline.cu:71 cuda-pipeline commit",
      "bench/baselines/manual_cuda_pipeline.cu:83 cuda-pipeline wait",
      "bench/baselines/manual_cuda_pipeline.cu:91 cuda-pipeline release",
      "bench/baselines/manual_tma.cu:164 cuda-tma call",
      "bench/baselines/manual_tma.cu:167 cuda-tma call",
      "bench/baselines/manual_tma.cu:173 cuda-tma call",
      "bench/baselines/manual_tma.cu:174 cuda-tma call",
      "bench/baselines/manual_tma.cu:189 cuda-tma call",
      "bench/baselines/manual_tma.cu:194 cuda-tma call",
      "bench/baselines/manual_tma.cu:197 cuda-tma call",
      "bench/baselines/manual_tma.cu:198 cuda-tma call",
      "bench/baselines/manual_tma.cu:220 cuda-tma call",  // pb_manual_tma_sgemm: init, its issue lambda,
      "bench/baselines/manual_tma.cu:232 cuda-tma call",
      "bench/baselines/manual_tma.cu:233 cuda-tma call",
      "bench/baselines/manual_tma.cu:234 cuda-tma call",
      "bench/baselines/manual_tma.cu:256 cuda-tma call",  // S = 1: tma_pipeline<1>
      "bench/baselines/manual_tma.cu:261 cuda-tma call",  // S > 1: its own loop's two waits
      "bench/baselines/manual_tma.cu:267 cuda-tma call",
      "bench/baselines/manual_tma.cu:286 cuda-tma call",
      "bench/baselines/manual_tma.cu:293 cuda-tma call",
      "bench/baselines/manual_tma.cu:296 cuda-tma call",
      "bench/baselines/manual_tma.cu:297 cuda-tma call",
      "bench/baselines/manual_tma.cu:298 cuda-tma call",
  };
  EXPECT_EQ(got.sites, want) << "found:\n" << show(got.sites);
  const std::multiset<std::string> wrappers = {
      "bench/baselines/manual_cp_async.cu:29 manual_pipeline", "bench/baselines/manual_tma.cu:76 init_full_barriers",
      "bench/baselines/manual_tma.cu:88 arrive_expect_tx",    "bench/baselines/manual_tma.cu:98 wait_full",
      "bench/baselines/manual_tma.cu:105 bulk_g2s",           "bench/baselines/manual_tma.cu:116 tensor_g2s_2d",
      "bench/baselines/manual_tma.cu:128 tma_pipeline"};
  EXPECT_EQ(got.wrappers, wrappers) << "found:\n" << show(got.wrappers);
  // tma_pipeline computes the parity from its loop counter, twice (S = 1 and S > 1), and so does
  // pb_manual_tma_sgemm's own loop ((i + 1) / S & 1); its first wait's parity is the constant 0.
  const std::multiset<std::string> hazards = {"bench/baselines/manual_tma.cu:133 parity-from-loop-counter",
                                              "bench/baselines/manual_tma.cu:142 parity-from-loop-counter",
                                              "bench/baselines/manual_tma.cu:267 parity-from-loop-counter"};
  EXPECT_EQ(got.hazards, hazards) << "found:\n" << show(got.hazards);
}

// ---- bench/ports: every site of each "before", none in the ports ------------------------------------------

TEST(Ports, EverySiteOfTheBeforesAndNoneInThePorts) {
  const fs::path src = PORTER_SOURCE_DIR;
  const auto files = files_under(src / "bench/ports", src);
  ASSERT_FALSE(files.empty());
  const auto r = scan(files);
  const auto got = found(r);
  // Read from the files: the inline-asm multistage loop (one copy, two commits, one wait), the
  // cooperative-groups double buffer (two copies, wait_prior<1>, wait), the cuda::barrier stage
  // (init, one block-collective copy per row, arrive_and_wait), the CuTe mainloop (cute::copy of the
  // TiledCopy for At and B in the prologue and the refill, two cp_async_fence, cp_async_wait<S - 2>).
  const std::multiset<std::string> want = {
      "bench/ports/before_asm_cp_async.cu:38 asm-cp-async copy",
      "bench/ports/before_asm_cp_async.cu:43 asm-cp-async commit",
      "bench/ports/before_asm_cp_async.cu:46 asm-cp-async wait",
      "bench/ports/before_asm_cp_async.cu:49 asm-cp-async commit",
      "bench/ports/before_cooperative_groups.cu:28 cooperative-groups copy",
      "bench/ports/before_cooperative_groups.cu:32 cooperative-groups copy",
      "bench/ports/before_cooperative_groups.cu:33 cooperative-groups wait",
      "bench/ports/before_cooperative_groups.cu:35 cooperative-groups wait",
      "bench/ports/before_cuda_barrier.cu:32 cuda-barrier init",
      "bench/ports/before_cuda_barrier.cu:43 cuda-barrier copy",
      "bench/ports/before_cuda_barrier.cu:54 cuda-barrier wait",
      "bench/ports/before_cute.cu:81 cutlass copy",
      "bench/ports/before_cute.cu:82 cutlass copy",
      "bench/ports/before_cute.cu:84 cutlass commit",
      "bench/ports/before_cute.cu:96 cutlass wait",
      "bench/ports/before_cute.cu:100 cutlass copy",
      "bench/ports/before_cute.cu:101 cutlass copy",
      "bench/ports/before_cute.cu:103 cutlass commit",
  };
  EXPECT_EQ(got.sites, want) << "found:\n" << show(got.sites);
  EXPECT_TRUE(got.hazards.empty()) << "found:\n" << show(got.hazards);
  EXPECT_TRUE(got.wrappers.empty()) << "found:\n" << show(got.wrappers);
  // The ports (and the files they share with their befores) hold no site: only porter's API.
  for (const auto& s : r.sites) EXPECT_EQ(s.file.rfind("bench/ports/before_", 0), 0u) << "a site outside a before: " << s.file << ":" << s.line;
  // Every idiom the ports workload claims to cover has a site here.
  std::set<std::string> idioms;
  for (const auto& s : r.sites) idioms.insert(s.idiom);
  EXPECT_EQ(idioms, (std::set<std::string>{"asm-cp-async", "cooperative-groups", "cuda-barrier", "cutlass"}));
}

// ---- porter's own library: the instructions in wrapper form, no site --------------------------------------

TEST(Library, PortersSourcesHoldWrappersButNoSite) {
  const fs::path src = PORTER_SOURCE_DIR;
  std::vector<source_file> files;
  for (const char* d : {"backends", "include", "core"}) {
    auto more = files_under(src / d, src);
    files.insert(files.end(), more.begin(), more.end());
  }
  ASSERT_GT(files.size(), 20u);
  const auto r = scan(files);
  EXPECT_TRUE(r.sites.empty()) << porter_port::to_text(r, false);
  EXPECT_TRUE(r.hazards.empty()) << porter_port::to_text(r, false);
  // The instruction layer is recognised, as wrappers: one per instruction variant.
  std::set<std::string> names;
  for (const auto& w : r.wrappers) names.insert(w.name);
  for (const char* w : {"cp_async_cg_16", "cp_async_ca_8", "cp_async_ca_4", "cp_async_commit_group", "cp_async_wait_group",
                        "bulk_copy_g2s", "tensor_copy_g2s_2d", "mbarrier_init", "mbarrier_try_wait_parity",
                        "fence_proxy_async_shared_cta", "PORTER_PTX_TENSOR_G2S"})
    EXPECT_TRUE(names.count(w)) << "porter's wrapper " << w << " not recognised";
  EXPECT_FALSE(r.wrapped.empty());
}

TEST(Library, PortersKernelsAreNoSites) {
  // Kernels written with porter (examples, bench kernels, porter's tests) call porter's API,
  // which is what a port is written in, not a site to port.
  const fs::path src = PORTER_SOURCE_DIR;
  std::vector<source_file> files;
  for (const char* d : {"backends", "include", "examples", "bench/kernels", "tests/device", "tests/lowering"}) {
    auto more = files_under(src / d, src);
    files.insert(files.end(), more.begin(), more.end());
  }
  const auto r = scan(files);
  EXPECT_TRUE(r.sites.empty()) << porter_port::to_text(r, false);
}

// ---- JSON, parsed back ----------------------------------------------------------------------------------

namespace {
/// A small JSON reader, enough to check porter-port's output (strict: throws on bad input).
struct json {
  std::variant<std::nullptr_t, bool, double, std::string, std::vector<json>, std::map<std::string, json>> v;
  const json& operator[](const std::string& k) const { return std::get<std::map<std::string, json>>(v).at(k); }
  const std::vector<json>& arr() const { return std::get<std::vector<json>>(v); }
  const std::string& str() const { return std::get<std::string>(v); }
  double num() const { return std::get<double>(v); }
};
struct json_reader {
  const std::string& s;
  std::size_t i = 0;
  void ws() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  void want(char c) {
    ws();
    if (i >= s.size() || s[i] != c) throw std::runtime_error(std::string("json: expected ") + c + " at " + std::to_string(i));
    ++i;
  }
  std::string string() {
    want('"');
    std::string o;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\') {
        const char e = s[++i];
        if (e == 'n') o += '\n';
        else if (e == 't') o += '\t';
        else if (e == 'r') o += '\r';
        else if (e == 'u') o += char(std::stoi(s.substr(i + 1, 4), nullptr, 16)), i += 4;
        else o += e;
        ++i;
      } else {
        o += s[i++];
      }
    }
    want('"');
    return o;
  }
  json value() {
    ws();
    json j;
    if (s[i] == '{') {
      ++i;
      std::map<std::string, json> m;
      ws();
      if (s[i] == '}') ++i;
      else
        for (;;) {
          std::string k = string();
          want(':');
          m[k] = value();
          ws();
          if (s[i] == ',') { ++i; continue; }
          want('}');
          break;
        }
      j.v = m;
    } else if (s[i] == '[') {
      ++i;
      std::vector<json> a;
      ws();
      if (s[i] == ']') ++i;
      else
        for (;;) {
          a.push_back(value());
          ws();
          if (s[i] == ',') { ++i; continue; }
          want(']');
          break;
        }
      j.v = a;
    } else if (s[i] == '"') {
      j.v = string();
    } else if (s.compare(i, 4, "null") == 0) {
      i += 4;
      j.v = nullptr;
    } else if (s.compare(i, 4, "true") == 0) {
      i += 4;
      j.v = true;
    } else if (s.compare(i, 5, "false") == 0) {
      i += 5;
      j.v = false;
    } else {
      std::size_t n = 0;
      j.v = std::stod(s.substr(i), &n);
      if (n == 0) throw std::runtime_error("json: bad value at " + std::to_string(i));
      i += n;
    }
    return j;
  }
};
json parse_json(const std::string& s) {
  json_reader r{s};
  json j = r.value();
  r.ws();
  if (r.i != s.size()) throw std::runtime_error("json: trailing text");
  return j;
}
}  // namespace

TEST(Json, ParsesBackToTheSameReport) {
  const fs::path root = PORTER_PORT_FIXTURES;
  const auto files = files_under(root, root);
  const auto r = scan(files);
  const json j = parse_json(porter_port::to_json(r));
  EXPECT_EQ(j["tool"].str(), "porter-port");
  EXPECT_EQ(j["schema"].num(), 1);
  ASSERT_EQ(j["sites"].arr().size(), r.sites.size());
  ASSERT_EQ(j["hazards"].arr().size(), r.hazards.size());
  ASSERT_EQ(j["wrappers"].arr().size(), r.wrappers.size());
  ASSERT_EQ(j["wrapped"].arr().size(), r.wrapped.size());
  for (std::size_t k = 0; k < r.sites.size(); ++k) {
    const json& s = j["sites"].arr()[k];
    EXPECT_EQ(s["file"].str(), r.sites[k].file);
    EXPECT_EQ(int(s["line"].num()), r.sites[k].line);
    EXPECT_EQ(s["idiom"].str(), r.sites[k].idiom);
    EXPECT_EQ(s["role"].str(), r.sites[k].role);
    EXPECT_EQ(s["construct"].str(), r.sites[k].construct);
    if (!r.sites[k].bytes.empty()) {
      EXPECT_EQ(s["bytes"].str(), r.sites[k].bytes);
    }
  }
  for (std::size_t k = 0; k < r.hazards.size(); ++k) {
    EXPECT_EQ(j["hazards"].arr()[k]["id"].str(), r.hazards[k].id);
    EXPECT_EQ(j["hazards"].arr()[k]["message"].str(), r.hazards[k].message);
  }
}

TEST(Inference, BytesZeroFillAlignmentStages) {
  const fs::path root = PORTER_PORT_FIXTURES;
  const auto r = scan(files_under(root / "pipeline_primitives.cu", root));
  ASSERT_FALSE(r.sites.empty());
  const auto& first = r.sites.front();  // __pipeline_memcpy_async(&ring[j][t], ..., sizeof(float4), j < tiles ? 0 : 16)
  EXPECT_EQ(first.bytes, "sizeof(float4)");
  EXPECT_NE(first.zero_fill.find("yes"), std::string::npos);
  EXPECT_EQ(first.stages, "Stages");
  const auto c = scan(files_under(root / "cuda_pipeline.cu", root));
  bool aligned = false, four = false;
  for (const auto& s : c.sites) {
    if (s.role == "copy" && s.alignment.find("guaranteed 4 B") != std::string::npos) aligned = true;
    if (s.role == "state" && s.stages == "kStages = 4") four = true;
  }
  EXPECT_TRUE(aligned);
  EXPECT_TRUE(four);
}

TEST(Inference, IndirectReadsAndReleasesAreNamedWhereTheKernelMakesThem) {
  // A read by a lambda argument is the call's line; a release through a lambda or a member
  // function is its call, named with what it holds.
  const fs::path root = PORTER_PORT_FIXTURES;
  const auto r = scan(files_under(root / "proxy_indirect.cu", root));
  std::map<std::string, std::string> by_fn;
  for (const auto& h : r.hazards)
    if (h.id == "generic-read-before-bulk-refill") by_fn[h.function] = h.message;
  ASSERT_EQ(by_fn.size(), 9u);
  EXPECT_NE(by_fn["arg_lambda_reads_param"].find("(line 35)"), std::string::npos) << by_fn["arg_lambda_reads_param"];
  EXPECT_NE(by_fn["arg_lambda_unknown_callee"].find("(line 50)"), std::string::npos) << by_fn["arg_lambda_unknown_callee"];
  EXPECT_NE(by_fn["lambda_release_asm"].find("release() (a lambda holding mbarrier.arrive.shared::cta.b64)"), std::string::npos)
      << by_fn["lambda_release_asm"];
  EXPECT_NE(by_fn["lambda_release_next_iteration"].find("on the loop's next iteration"), std::string::npos)
      << by_fn["lambda_release_next_iteration"];
  EXPECT_NE(by_fn["member_release"].find("ring.release() wraps arrive"), std::string::npos) << by_fn["member_release"];
  EXPECT_NE(by_fn["member_release_through_pointer"].find("rings[blockIdx.x].hand_back()"), std::string::npos)
      << by_fn["member_release_through_pointer"];
  // A member call is no site (the member function is a wrapper definition); a kernel lambda named
  // like a member function is no call of it.
  for (const auto& s : r.sites) EXPECT_NE(s.role, "call") << s.file << ":" << s.line << " " << s.construct;
}

TEST(Inference, TheStageOfACarvedArrayIsTheRegionABulkCopyFills) {
  // A region of an extern __shared__ array is named by its first pointer; a copy written on the
  // array itself fills the whole array; reads and stores of another region are no proxy hazard.
  const fs::path root = PORTER_PORT_FIXTURES;
  const auto r = scan(files_under(root / "smem_regions.cu", root));
  std::map<std::string, std::string> by_fn;
  for (const auto& h : r.hazards) {
    EXPECT_EQ(h.id, "generic-read-before-bulk-refill") << h.function << ": " << h.message;
    by_fn[h.function] = h.message;
  }
  EXPECT_EQ(by_fn.size(), 9u);
  for (const char* fn : {"region_scratch_only", "region_per_stage_pointer_scratch", "region_read_fenced"})
    EXPECT_EQ(by_fn.count(fn), 0u) << fn << ": " << by_fn[fn];
  const std::map<std::string, std::string> label = {{"region_read_unfenced", "a_tiles"},
                                                    {"region_second_name", "b_tiles"},
                                                    {"region_per_stage_pointer", "stage"},
                                                    {"region_same_start_stage_index", "ring"},
                                                    {"region_same_start_value", "scratch"},
                                                    {"raw_array_destination", "smem"},
                                                    {"raw_array_read", "a_tiles"},
                                                    {"raw_array_other_name", "scratch"},
                                                    {"region_pointer_reassigned", "a_tiles"}};
  for (const auto& [fn, name] : label)
    EXPECT_EQ(by_fn[fn].rfind("`" + name + "` is filled by a bulk copy", 0), 0u) << fn << ": " << by_fn[fn];
}

// ---- the command line -----------------------------------------------------------------------------------

namespace {
int run(const std::string& args, std::string* out = nullptr) {
  const std::string tmp = (fs::temp_directory_path() / ("porter_port_test_" + std::to_string(::getpid()) + ".txt")).string();
  const int rc = std::system((std::string("\"") + PORTER_PORT_EXE + "\" " + args + " > \"" + tmp + "\" 2>&1").c_str());
  if (out) *out = slurp(tmp);
  fs::remove(tmp);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}
std::string fixture(const char* f) { return std::string("\"") + PORTER_PORT_FIXTURES + "/" + f + "\""; }
}  // namespace

TEST(Cli, ExitCodes) {
  std::string out;
  EXPECT_EQ(run("--help", &out), 0);
  EXPECT_NE(out.find("exit status"), std::string::npos);
  EXPECT_EQ(run("", &out), 2);
  EXPECT_EQ(run("--no-such-option x.cu"), 2);
  EXPECT_EQ(run("/no/such/file.cu", &out), 2);
  EXPECT_NE(out.find("cannot read"), std::string::npos);
  EXPECT_EQ(run(fixture("wrappers/unrelated.cu")), 0);          // no site
  EXPECT_EQ(run(fixture("pipeline_primitives.cu")), 1);         // sites, no hazard
  EXPECT_EQ(run(fixture("wait_count.cu")), 3);                  // hazards
  EXPECT_EQ(run("--version", &out), 0);
  EXPECT_EQ(out.rfind("porter-port ", 0), 0u);
}

TEST(Cli, TextJsonSummaryAndOutputFile) {
  std::string out;
  EXPECT_EQ(run(fixture("cuda_barrier.cu"), &out), 1);
  EXPECT_NE(out.find("cuda_barrier.cu:14:5: cuda-barrier copy  cuda::memcpy_async"), std::string::npos) << out;
  EXPECT_NE(out.find("porter: "), std::string::npos);
  EXPECT_EQ(run("--summary " + fixture("cuda_barrier.cu"), &out), 1);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  const std::string file = (fs::temp_directory_path() / ("porter_port_json_" + std::to_string(::getpid()) + ".json")).string();
  EXPECT_EQ(run("--json -o \"" + file + "\" " + fixture("wrappers"), &out), 1);
  const json j = parse_json(slurp(file));
  fs::remove(file);
  EXPECT_EQ(j["sites"].arr().size(), 3u);
  EXPECT_EQ(j["files"].arr().size(), 3u);  // a folder is scanned recursively
}
