// bench/src/peer_rows.cpp — see peer_rows.hpp.
#include "peer_rows.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>

namespace pb {

std::string flat_json::s(const std::string& key, const std::string& fallback) const {
  auto it = str.find(key);
  return it == str.end() ? fallback : it->second;
}

double flat_json::d(const std::string& key, double fallback) const {
  auto it = num.find(key);
  return it == num.end() ? fallback : it->second;
}

namespace {

struct cursor {
  const std::string& t;
  std::size_t i = 0;
  std::string err;
  void ws() {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  }
  bool fail(const std::string& why) {
    if (err.empty()) err = why + " at offset " + std::to_string(i);
    return false;
  }
  bool lit(const char* w) {
    const std::string s(w);
    if (t.compare(i, s.size(), s) != 0) return false;
    i += s.size();
    return true;
  }
};

void put_utf8(std::string& o, unsigned cp) {
  if (cp < 0x80) {
    o += char(cp);
  } else if (cp < 0x800) {
    o += char(0xC0 | (cp >> 6));
    o += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    o += char(0xE0 | (cp >> 12));
    o += char(0x80 | ((cp >> 6) & 0x3F));
    o += char(0x80 | (cp & 0x3F));
  } else {
    o += char(0xF0 | (cp >> 18));
    o += char(0x80 | ((cp >> 12) & 0x3F));
    o += char(0x80 | ((cp >> 6) & 0x3F));
    o += char(0x80 | (cp & 0x3F));
  }
}

bool hex4(cursor& c, unsigned& v) {
  if (c.i + 4 > c.t.size()) return c.fail("short \\u escape");
  v = 0;
  for (int k = 0; k < 4; ++k) {
    const char h = c.t[c.i++];
    v <<= 4;
    if (h >= '0' && h <= '9') v |= unsigned(h - '0');
    else if (h >= 'a' && h <= 'f') v |= unsigned(h - 'a' + 10);
    else if (h >= 'A' && h <= 'F') v |= unsigned(h - 'A' + 10);
    else return c.fail("bad hex digit in \\u escape");
  }
  return true;
}

bool string_value(cursor& c, std::string& out) {
  if (c.i >= c.t.size() || c.t[c.i] != '"') return c.fail("expected a string");
  ++c.i;
  out.clear();
  while (c.i < c.t.size()) {
    const char ch = c.t[c.i++];
    if (ch == '"') return true;
    if (static_cast<unsigned char>(ch) < 0x20) return c.fail("control character in a string");
    if (ch != '\\') {
      out += ch;
      continue;
    }
    if (c.i >= c.t.size()) break;
    const char e = c.t[c.i++];
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        unsigned v = 0;
        if (!hex4(c, v)) return false;
        if (v >= 0xD800 && v < 0xDC00) {  // a surrogate pair
          unsigned lo = 0;
          if (!c.lit("\\u") || !hex4(c, lo) || lo < 0xDC00 || lo >= 0xE000) return c.fail("unpaired surrogate");
          v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
        }
        put_utf8(out, v);
        break;
      }
      default: return c.fail(std::string("bad escape \\") + e);
    }
  }
  return c.fail("unterminated string");
}

}  // namespace

bool parse_flat_json(const std::string& text, flat_json& out, std::string* error) {
  cursor c{text, 0, {}};
  out = flat_json{};
  auto done = [&](bool ok) {
    if (!ok && error) *error = c.err.empty() ? "not a flat JSON object" : c.err;
    return ok;
  };
  c.ws();
  if (!c.lit("{")) return done(c.fail("expected {"));
  c.ws();
  if (c.lit("}")) {
    c.ws();
    return done(c.i == text.size() || c.fail("text after the object"));
  }
  for (;;) {
    c.ws();
    std::string key;
    if (!string_value(c, key)) return done(false);
    c.ws();
    if (!c.lit(":")) return done(c.fail("expected :"));
    c.ws();
    if (c.i >= text.size()) return done(c.fail("missing value"));
    const char v = text[c.i];
    if (v == '"') {
      std::string s;
      if (!string_value(c, s)) return done(false);
      out.str[key] = s;
    } else if (c.lit("true")) {
      out.num[key] = 1;
    } else if (c.lit("false")) {
      out.num[key] = 0;
    } else if (c.lit("null")) {
      // absent
    } else if (c.lit("NaN")) {  // Python's json writes non-finite floats this way
      out.num[key] = std::numeric_limits<double>::quiet_NaN();
    } else if (c.lit("Infinity")) {
      out.num[key] = std::numeric_limits<double>::infinity();
    } else if (c.lit("-Infinity")) {
      out.num[key] = -std::numeric_limits<double>::infinity();
    } else if (v == '-' || (v >= '0' && v <= '9')) {
      const std::size_t s = c.i;
      while (c.i < text.size() && (std::isdigit(static_cast<unsigned char>(text[c.i])) || text[c.i] == '-' ||
                                   text[c.i] == '+' || text[c.i] == '.' || text[c.i] == 'e' || text[c.i] == 'E'))
        ++c.i;
      const std::string tok = text.substr(s, c.i - s);
      char* end = nullptr;
      const double d = std::strtod(tok.c_str(), &end);
      if (end != tok.c_str() + tok.size()) return done(c.fail("bad number " + tok));
      out.num[key] = d;
    } else if (v == '{' || v == '[') {
      return done(c.fail("nested objects and arrays are not part of the format"));
    } else {
      return done(c.fail("unexpected character"));
    }
    c.ws();
    if (c.lit(",")) continue;
    if (c.lit("}")) break;
    return done(c.fail("expected , or }"));
  }
  c.ws();
  return done(c.i == text.size() || c.fail("text after the object"));
}

peer_output parse_peer_output(const std::string& text) {
  static const std::string prefix = "PBPEER ";
  peer_output o;
  std::istringstream is(text);
  auto bad = [&](const std::string& line, const std::string& why) {
    if (o.malformed++ == 0) o.first_malformed = why + ": " + (line.size() > 200 ? line.substr(0, 200) + "..." : line);
  };
  for (std::string line; std::getline(is, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(prefix, 0) != 0) {
      if (!line.empty()) ++o.other_lines;
      continue;
    }
    flat_json j;
    std::string why;
    if (!parse_flat_json(line.substr(prefix.size()), j, &why)) {
      bad(line, why);
      continue;
    }
    const std::string type = j.s("type");
    if (type == "meta") {
      if (j.s("key").empty()) bad(line, "meta without a key");
      else o.meta.emplace_back(j.s("key"), j.s("value"));
    } else if (type == "note") {
      o.notes.push_back(j.s("text"));
    } else if (type == "skip") {
      o.skipped = j.s("reason", "no reason given");
    } else if (type == "row") {
      peer_row p;
      row& r = p.r;
      r.workload = j.s("workload");
      r.size = j.s("size");
      r.impl = j.s("impl");
      r.status = j.s("status");
      if (r.workload.empty() || r.size.empty() || r.impl.empty() || r.status.empty()) {
        bad(line, "row without workload, size, impl or status");
        continue;
      }
      p.config = j.s("config");
      p.checksum = j.s("checksum");
      p.ceiling_stand_in = j.d("ceiling_stand_in") != 0;
      p.self_test = j.d("self_test") != 0;
      r.kernel = j.s("kernel");
      if (!p.config.empty()) r.kernel += (r.kernel.empty() ? "[" : " [") + p.config + "]";
      r.check = j.s("check");
      if (!p.checksum.empty() && r.check.find("checksum " + p.checksum) == std::string::npos)
        r.check += (r.check.empty() ? "checksum " : "; checksum ") + p.checksum;
      r.ms_median = j.d("ms_median");
      r.ms_min = j.d("ms_min");
      r.ms_p10 = j.d("ms_p10");
      r.ms_p90 = j.d("ms_p90");
      r.reps = int(j.d("reps"));
      r.bytes = j.d("bytes");
      r.flops = j.d("flops");
      r.unit = j.s("unit");
      r.ceiling = j.s("ceiling");
      if (r.ok() && !(r.ms_median > 0 && std::isfinite(r.ms_median))) {
        bad(line, "an ok row without a positive median");
        continue;
      }
      o.rows.push_back(std::move(p));
    } else {
      bad(line, "unknown type '" + type + "'");
    }
  }
  return o;
}

std::string size_key(const std::string& size) { return size.substr(0, size.find(' ')); }

namespace {

double rate_of(const row& r) {
  if (!r.ok() || r.ms_median <= 0) return 0;
  const double s = r.ms_median * 1e-3;
  return r.unit == "GB/s" ? r.bytes / s / 1e9 : r.flops / s / 1e12;
}

std::string checksum_in(const std::string& check) {
  const auto pos = check.find("checksum ");
  return pos == std::string::npos ? "" : check.substr(pos + 9, 16);
}

}  // namespace

std::vector<std::string> merge_peer_rows(std::vector<row>& rows, const std::vector<peer_row>& peers) {
  std::vector<std::string> notes;
  const std::size_t original = rows.size();
  auto same_group = [](const row& r, const std::string& w, const std::string& key) {
    return r.workload == w && size_key(r.size) == key;
  };
  // Per peer: its row as merged, and where it goes (index of the group's last original row + 1,
  // or `original` for rows that stand alone).
  std::vector<std::pair<std::size_t, row>> placed;
  std::set<std::string> noted;
  for (const peer_row& p : peers) {
    row r = p.r;
    const std::string key = size_key(r.size);
    const row* unit_row = nullptr;  // porter-bench's definitions of size, bytes, flops, unit
    const row* ceil_row = nullptr;  // any row of the group with a rate and a ratio
    const row* porter_sum = nullptr;
    std::size_t last = original;
    bool grouped = false;
    for (std::size_t i = 0; i < original; ++i) {
      const row& g = rows[i];
      if (!same_group(g, r.workload, key)) continue;
      grouped = true;
      last = i + 1;
      if (!unit_row && !g.unit.empty()) unit_row = &g;
      if (!ceil_row && g.ok() && g.rate > 0 && g.ratio > 0) ceil_row = &g;
      if (!porter_sum && g.ok() && g.impl.rfind("porter", 0) == 0 && !checksum_in(g.check).empty()) porter_sum = &g;
    }
    if (grouped && unit_row) {
      if (r.size != unit_row->size) {
        r.check += (r.check.empty() ? "" : "; ") + std::string("the peer's size label: ") + r.size;
        r.size = unit_row->size;
      }
      r.bytes = unit_row->bytes;
      r.flops = unit_row->flops;
      r.unit = unit_row->unit;
    }
    r.rate = rate_of(r);
    double ceiling_rate = 0;
    if (ceil_row) {
      ceiling_rate = ceil_row->rate / ceil_row->ratio;
      r.ceiling = ceil_row->ceiling;
    } else if (!grouped) {
      // Standing alone: the peer's own stand-in for the ceiling at the same workload and size.
      for (const peer_row& q : peers)
        if (q.ceiling_stand_in && q.r.workload == r.workload && size_key(q.r.size) == key && q.r.ok()) {
          ceiling_rate = rate_of(q.r);
          r.ceiling = q.r.ceiling;
          break;
        }
      const std::string g = r.workload + " " + r.size;
      if (noted.insert(g).second)
        notes.push_back("peer rows of " + g + " stand alone (porter-bench measured no " + r.workload + " at " + key +
                        " in this run); their ratio is to " + (ceiling_rate > 0 ? r.ceiling : std::string("nothing (no ceiling)")));
    }
    r.ratio = r.ok() && ceiling_rate > 0 ? r.rate / ceiling_rate : 0;
    if (r.ok() && porter_sum && !p.checksum.empty())
      r.check += p.checksum == checksum_in(porter_sum->check) ? "; bit-identical to porter" : "; not bit-identical to porter";
    placed.emplace_back(grouped ? last : original, std::move(r));
  }
  // Peers placed at `at` go right after original row at - 1 (before row at), in the order printed.
  std::vector<row> merged;
  merged.reserve(rows.size() + placed.size());
  for (std::size_t i = 0; i <= original; ++i) {
    for (const auto& [at, r] : placed)
      if (at == i) merged.push_back(r);
    if (i < original) merged.push_back(std::move(rows[i]));
  }
  rows = std::move(merged);
  return notes;
}

}  // namespace pb
