// bench/src/report.cpp — table, CSV and JSON forms of a porter-bench report.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace pb {

std::string format_double(double v, int precision) {
  if (!std::isfinite(v)) return "nan";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", precision, v);
  return b;
}

std::string format_time(double ms) {
  char b[64];
  if (ms >= 1.0) std::snprintf(b, sizeof b, "%.3f ms", ms);
  else std::snprintf(b, sizeof b, "%.1f us", ms * 1e3);
  return b;
}

std::optional<double> metric_number(const std::string& v) {
  std::string d;
  for (char c : v)
    if (c != ',') d += c;
  while (!d.empty() && d.back() == ' ') d.pop_back();
  if (d.empty()) return std::nullopt;
  char* end = nullptr;
  const double x = std::strtod(d.c_str(), &end);
  if (end == nullptr || *end != '\0' || !std::isfinite(x)) return std::nullopt;
  return x;
}

std::optional<double> stall_line::number(const std::string& name) const {
  for (const auto& [k, v] : metrics)
    if (k == name) return metric_number(v);
  return std::nullopt;
}

bool parse_stall_label(const std::string& label, stall_line& s) {
  // From the end: " S=<stages>", then " <impl>/<path>", then "<workload>[ <size>]".
  const auto s_at = label.rfind(" S=");
  if (s_at == std::string::npos || s_at == 0) return false;
  const std::string n = label.substr(s_at + 3);
  if (n.empty() || n.size() > 3 || n.find_first_not_of("0123456789") != std::string::npos) return false;
  const auto ip_at = label.rfind(' ', s_at - 1);
  if (ip_at == std::string::npos || ip_at == 0) return false;
  const std::string ip = label.substr(ip_at + 1, s_at - ip_at - 1);
  const auto slash = ip.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == ip.size()) return false;
  const std::string head = label.substr(0, ip_at);
  const auto sp = head.find(' ');
  s.workload = head.substr(0, sp);
  s.size = sp == std::string::npos ? "" : head.substr(sp + 1);
  s.impl = ip.substr(0, slash);
  s.path = ip.substr(slash + 1);
  s.stages = std::stoi(n);
  return true;
}

bool report::any_failed() const {
  return std::any_of(rows.begin(), rows.end(), [](const row& r) { return r.status.rfind("FAILED", 0) == 0; });
}

namespace {

std::string pad(const std::string& s, std::size_t w, bool right = false) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string impl_label(const row& r) {
  std::string s = r.impl;
  if (r.path != "-") s += "/" + r.path;
  return s;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += "\"\"";
    else if (c == '\n') o += ' ';
    else o += c;
  }
  return o + "\"";
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += char(c);
        }
    }
  }
  return o + "\"";
}

std::string json_num(double v) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

}  // namespace

std::string mechanisms_table(const std::vector<mechanism_line>& mechanisms) {
  if (mechanisms.empty()) return "";
  std::ostringstream o;
  o << "\nBytes per mechanism (porter::copy_mechanisms over every distinct box each workload copies; a GEMM copies each box "
       "once per output tile of its row or column, which leaves the fractions unchanged; tma and cp_async fall back to thread "
       "loads where these say so)\n";
  for (const auto& m : mechanisms) {
    o << "  " << pad(m.workload, 14) << pad(m.path, 9);
    for (std::size_t i = 0; i < m.fractions.size(); ++i)
      o << (i ? ", " : "") << m.fractions[i].first << " " << format_double(100.0 * m.fractions[i].second, 1) << "%";
    o << "\n";
    if (!m.detail.empty()) o << "      " << m.detail << "\n";
  }
  return o.str();
}

std::string report::table() const {
  std::ostringstream o;
  // ---- main table -------------------------------------------------------------------------------
  o << "\n" << pad("workload", 14) << pad("size", 14) << pad("implementation", 30) << pad("S", 3, true)
    << pad("CTA/SM", 7, true) << pad("regs", 5, true) << pad("median", 12, true) << pad("rate", 16, true)
    << pad("ratio", 9, true) << "  " << "vs / status\n";
  o << std::string(120, '-') << "\n";
  std::string last;
  for (const row& r : rows) {
    if (r.sweep_only) continue;
    const std::string key = r.workload + " " + r.size;
    if (!last.empty() && key != last) o << "\n";
    last = key;
    o << pad(r.workload, 14) << pad(r.size, 14) << pad(impl_label(r), 30) << pad(r.stages ? std::to_string(r.stages) : "-", 3, true)
      << pad(r.ctas_per_sm ? std::to_string(r.ctas_per_sm) : "-", 7, true) << pad(r.regs ? std::to_string(r.regs) : "-", 5, true);
    if (r.ok()) {
      o << pad(format_time(r.ms_median), 12, true) << pad(format_double(r.rate, r.unit == "GB/s" ? 1 : 2) + " " + r.unit, 16, true)
        << pad(r.ratio > 0 ? format_double(r.ratio, 3) + "x" : std::string("-"), 9, true) << "  " << r.ceiling;
    } else {
      o << "  " << r.status;
    }
    o << "\n";
  }
  // ---- stage sweep ------------------------------------------------------------------------------
  std::vector<std::string> groups;
  for (const row& r : rows)
    if (r.stages > 0) {
      const std::string g = r.workload + " " + r.size;
      if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
    }
  if (!groups.empty()) {
    o << "\nStage sweep (rate per stage count; * best of the row, p the planner's choice)\n";
    for (const auto& g : groups) {
      std::vector<std::string> impls;
      for (const row& r : rows)
        if (r.stages > 0 && r.workload + " " + r.size == g && std::find(impls.begin(), impls.end(), impl_label(r)) == impls.end())
          impls.push_back(impl_label(r));
      std::string unit;
      for (const row& r : rows)
        if (r.workload + " " + r.size == g && !r.unit.empty()) unit = r.unit;
      o << "  " << g << " (" << unit << ")\n    " << pad("", 30);
      for (int s = 1; s <= 8; ++s) o << pad("S=" + std::to_string(s), 10, true);
      o << "\n";
      for (const auto& im : impls) {
        std::map<int, const row*> by;
        for (const row& r : rows)
          if (r.stages > 0 && r.workload + " " + r.size == g && impl_label(r) == im) by[r.stages] = &r;
        double best = 0;
        int best_s = 0;
        for (auto& [s, r] : by)
          if (r->ok() && r->rate > best) { best = r->rate; best_s = s; }
        int planned = 0;
        for (const auto& p : planner)
          if (p.workload == g && im == "porter/" + p.path) planned = p.planned;
        o << "    " << pad(im, 30);
        for (int s = 1; s <= 8; ++s) {
          auto it = by.find(s);
          std::string cell = "-";
          if (it != by.end()) cell = it->second->ok() ? format_double(it->second->rate, unit == "GB/s" ? 0 : 2)
                                                     : (it->second->status.rfind("FAILED", 0) == 0 ? "FAIL" : "skip");
          if (s == best_s) cell += "*";
          if (s == planned) cell += "p";
          o << pad(cell, 10, true);
        }
        o << "\n";
      }
    }
  }
  // ---- planner ----------------------------------------------------------------------------------
  o << mechanisms_table(mechanisms);
  if (!planner.empty()) {
    o << "\nStage planner (Little's law) against the best stage of the sweep (paired: the two re-timed in alternating rounds)\n";
    for (const auto& p : planner) {
      o << "  " << pad(p.workload, 20) << pad(p.path, 9) << " planned S=" << p.planned << " ("
        << format_double(p.planned_rate, p.unit == "GB/s" ? 0 : 2) << " " << p.unit << "), best S=" << p.best << " ("
        << format_double(p.best_rate, p.unit == "GB/s" ? 0 : 2) << " " << p.unit << "): "
        << (p.best_rate > 0 ? format_double(p.planned_rate / p.best_rate, 3) + "x" : std::string("n/a"));
      if (p.paired_rounds > 0)
        o << " unpaired, " << format_double(p.paired_ratio, 3) << "x paired (" << p.paired_rounds << " rounds against " << p.best_label
          << ")";
      o << "\n      " << p.reason << "\n";
    }
  }
  // ---- stall reasons ------------------------------------------------------------------------------
  if (!stalls.empty() || !stalls_note.empty()) {
    o << "\nStall reasons (Nsight Compute, --clock-control none, one launch per kernel)\n";
    if (!stalls_note.empty()) o << "  " << stalls_note << "\n";
    for (const auto& s : stalls) {
      o << "  " << pad(s.label, 34);
      for (const auto& [k, v] : s.metrics) o << "  " << k << "=" << v;
      o << "\n";
    }
  }
  // ---- targets ----------------------------------------------------------------------------------
  if (!targets.empty()) {
    o << "\nTargets\n";
    for (const auto& t : targets) {
      o << "  " << pad(t.verdict, 5) << " " << t.name;
      if (t.verdict != "n/a") o << ": " << format_double(t.value, 3) << " (goal " << format_double(t.goal, 2) << ")";
      o << "\n";
      if (!t.detail.empty()) o << "        " << t.detail << "\n";
    }
  }
  for (const auto& n : notes) o << "note: " << n << "\n";
  return o.str();
}

std::string report::csv() const {
  std::ostringstream o;
  for (const auto& [k, v] : meta) o << "# " << k << ": " << v << "\n";
  o << "workload,size,impl,path,stages,sweep_only,kernel,threads,ctas_per_sm,grid,regs,local_bytes,smem_bytes,"
       "ms_median,ms_min,ms_p10,ms_p90,reps,bytes,flops,rate,unit,ratio,ceiling,status,check\n";
  for (const row& r : rows) {
    o << csv_field(r.workload) << "," << csv_field(r.size) << "," << csv_field(r.impl) << "," << csv_field(r.path) << ","
      << r.stages << "," << (r.sweep_only ? 1 : 0) << "," << csv_field(r.kernel) << "," << r.threads << "," << r.ctas_per_sm
      << "," << r.grid << "," << r.regs << "," << r.local_bytes << "," << r.smem << "," << json_num(r.ms_median) << ","
      << json_num(r.ms_min) << "," << json_num(r.ms_p10) << "," << json_num(r.ms_p90) << "," << r.reps << ","
      << json_num(r.bytes) << "," << json_num(r.flops) << "," << json_num(r.rate) << "," << csv_field(r.unit) << ","
      << json_num(r.ratio) << "," << csv_field(r.ceiling) << "," << csv_field(r.status) << "," << csv_field(r.check) << "\n";
  }
  return o.str();
}

std::string report::json() const {
  std::ostringstream o;
  o << "{\n  \"meta\": {";
  for (std::size_t i = 0; i < meta.size(); ++i)
    o << (i ? ",\n    " : "\n    ") << json_str(meta[i].first) << ": " << json_str(meta[i].second);
  o << "\n  },\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const row& r = rows[i];
    o << (i ? ",\n    " : "\n    ") << "{\"workload\": " << json_str(r.workload) << ", \"size\": " << json_str(r.size)
      << ", \"impl\": " << json_str(r.impl) << ", \"path\": " << json_str(r.path) << ", \"stages\": " << r.stages
      << ", \"sweep_only\": " << (r.sweep_only ? "true" : "false") << ", \"kernel\": " << json_str(r.kernel)
      << ", \"threads\": " << r.threads << ", \"ctas_per_sm\": " << r.ctas_per_sm << ", \"grid\": " << r.grid
      << ", \"regs\": " << r.regs << ", \"local_bytes\": " << r.local_bytes << ", \"smem_bytes\": " << r.smem
      << ", \"ms_median\": " << json_num(r.ms_median) << ", \"ms_min\": " << json_num(r.ms_min)
      << ", \"ms_p10\": " << json_num(r.ms_p10) << ", \"ms_p90\": " << json_num(r.ms_p90) << ", \"reps\": " << r.reps
      << ", \"bytes\": " << json_num(r.bytes) << ", \"flops\": " << json_num(r.flops) << ", \"rate\": " << json_num(r.rate)
      << ", \"unit\": " << json_str(r.unit) << ", \"ratio\": " << json_num(r.ratio) << ", \"ceiling\": " << json_str(r.ceiling)
      << ", \"status\": " << json_str(r.status) << ", \"check\": " << json_str(r.check);
    if (r.paired_rounds > 0)
      o << ", \"paired_ratio\": " << json_num(r.paired_ratio) << ", \"paired_rounds\": " << r.paired_rounds
        << ", \"paired_with\": " << json_str(r.paired_with);
    o << "}";
  }
  o << "\n  ],\n  \"planner\": [";
  for (std::size_t i = 0; i < planner.size(); ++i) {
    const auto& p = planner[i];
    o << (i ? ",\n    " : "\n    ") << "{\"workload\": " << json_str(p.workload) << ", \"path\": " << json_str(p.path)
      << ", \"planned_stages\": " << p.planned << ", \"best_stages\": " << p.best << ", \"planned_rate\": " << json_num(p.planned_rate)
      << ", \"best_rate\": " << json_num(p.best_rate) << ", \"unit\": " << json_str(p.unit) << ", \"best_point\": " << json_str(p.best_label)
      << ", \"unpaired_ratio\": " << json_num(p.unpaired_ratio() > 0 ? p.unpaired_ratio() : NAN);
    if (p.paired_rounds > 0) o << ", \"paired_ratio\": " << json_num(p.paired_ratio) << ", \"paired_rounds\": " << p.paired_rounds;
    o << ", \"reason\": " << json_str(p.reason) << "}";
  }
  o << "\n  ],\n  \"mechanisms\": [";
  for (std::size_t i = 0; i < mechanisms.size(); ++i) {
    const auto& m = mechanisms[i];
    o << (i ? ",\n    " : "\n    ") << "{\"workload\": " << json_str(m.workload) << ", \"path\": " << json_str(m.path) << ", \"fractions\": {";
    for (std::size_t j = 0; j < m.fractions.size(); ++j)
      o << (j ? ", " : "") << json_str(m.fractions[j].first) << ": " << json_num(m.fractions[j].second);
    o << "}, \"detail\": " << json_str(m.detail) << "}";
  }
  o << "\n  ],\n  \"targets\": [";
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const auto& t = targets[i];
    o << (i ? ",\n    " : "\n    ") << "{\"name\": " << json_str(t.name) << ", \"value\": " << json_num(t.value)
      << ", \"goal\": " << json_num(t.goal) << ", \"verdict\": " << json_str(t.verdict) << ", \"detail\": " << json_str(t.detail) << "}";
  }
  o << "\n  ],\n  \"stalls_note\": " << json_str(stalls_note) << ",\n  \"stalls\": [";
  for (std::size_t i = 0; i < stalls.size(); ++i) {
    const auto& s = stalls[i];
    o << (i ? ",\n    " : "\n    ") << "{\"label\": " << json_str(s.label) << ", \"kernel\": " << json_str(s.kernel) << ", \"metrics\": {";
    for (std::size_t j = 0; j < s.metrics.size(); ++j)
      o << (j ? ", " : "") << json_str(s.metrics[j].first) << ": " << json_str(s.metrics[j].second);
    o << "}}";
  }
  o << "\n  ],\n  \"notes\": [";
  for (std::size_t i = 0; i < notes.size(); ++i) o << (i ? ", " : "") << json_str(notes[i]);
  o << "]\n}\n";
  return o.str();
}

}  // namespace pb
