#include "ir/json_text.h"
#include "lowering/kit.h"
#include "base/files.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lowering/kernel_cache.h"
#include "lowering/kit_pack.h"

namespace af::lowering {

using nlohmann::json;

void kit_add_expected(KitCase& c, const oracles::Observables& o, std::vector<float>& floats) {
  c.expected_offset = static_cast<int64_t>(floats.size());
  c.return_shapes.clear();
  c.storage_sizes.clear();
  for (const auto& r : o.returns) {
    c.return_shapes.emplace_back(r.sizes.begin(), r.sizes.end());
    floats.insert(floats.end(), r.v.begin(), r.v.end());
  }
  for (const auto& s : o.storages) {
    c.storage_sizes.push_back(static_cast<int64_t>(s.size()));
    floats.insert(floats.end(), s.begin(), s.end());
  }
}

oracles::Observables kit_expected(const KitCase& c, const std::vector<float>& floats) {
  oracles::Observables o;
  size_t at = static_cast<size_t>(c.expected_offset);
  auto take = [&](int64_t n) {
    std::vector<float> v;
    if (at + static_cast<size_t>(n) <= floats.size()) v.assign(floats.begin() + at, floats.begin() + at + n);
    at += static_cast<size_t>(n);
    return v;
  };
  for (const auto& shape : c.return_shapes) {
    oracles::Dense d;
    int64_t n = 1;
    for (int64_t s : shape) {
      d.sizes.push_back(s);
      n *= s;
    }
    d.v = take(n);
    o.returns.push_back(std::move(d));
  }
  for (int64_t n : c.storage_sizes) o.storages.push_back(take(n));
  return o;
}

std::string write_kit(const std::string& dir, const Kit& kit, const std::vector<float>& floats) {
  json cases = json::array();
  for (const auto& c : kit.cases)
    cases.push_back({{"program", c.program},
                     {"strategy", c.strategy},
                     {"fusion", c.fusion},
                     {"mutant", c.mutant},
                     {"must_agree", c.must_agree},
                     {"original", c.original},
                     {"scheduled", c.scheduled},
                     {"regions", c.regions},
                     {"origin", c.origin},
                     {"expected_offset", c.expected_offset},
                     {"return_shapes", c.return_shapes},
                     {"storage_sizes", c.storage_sizes}});
  const json j = {{"format", 2},
                  {"target", kit.target},
                  {"target_string", kit.target_string},
                  {"halide_version", kit.halide_version},
                  {"seed", kit.seed},
                  {"build_errors", kit.build_errors},
                  {"cases", cases}};
  // xz: program texts and observables are a tenth of a 500-program kit
  // as plain files (lowering/kit.h).
  std::string why, json_xz, floats_xz;
  const std::string bytes(reinterpret_cast<const char*>(floats.data()), floats.size() * sizeof(float));
  if (!xz_compress(bytes, &floats_xz, &why) || !xz_compress(ir::json_text(j), &json_xz, &why) ||
      !base::write_file_atomic(dir + "/expected.bin.xz", floats_xz, &why) ||
      !base::write_file_atomic(dir + "/kit.json.xz", json_xz, &why))
    return why;
  // A kit rebuilt in place from an older format: its plain files would be read first.
  std::remove((dir + "/expected.bin").c_str());
  std::remove((dir + "/kit.json").c_str());
  return "";
}

namespace {

// DIR/NAME, or DIR/NAME.xz decompressed (what write_kit writes); "" or why not.
std::string read_maybe_xz(const std::string& dir, const std::string& name, std::string* out) {
  std::string packed, why;
  if (base::read_file(dir + "/" + name, out)) return "";
  if (!base::read_file(dir + "/" + name + ".xz", &packed)) return "cannot read " + dir + "/" + name + "(.xz)";
  if (!xz_decompress(packed, out, &why)) return dir + "/" + name + ".xz: " + why;
  return "";
}

}  // namespace

std::string read_kit(const std::string& dir, Kit* kit, std::vector<float>* floats) {
  std::string text, bytes;
  if (std::string e = read_maybe_xz(dir, "kit.json", &text); !e.empty()) return e;
  if (std::string e = read_maybe_xz(dir, "expected.bin", &bytes); !e.empty()) return e;
  try {
    const json j = json::parse(text);
    if (j.at("format") != 2)
      return "kit.json: format " + ir::json_text(j.at("format")) + ", this runner reads format 2";
    kit->target = j.at("target");
    kit->target_string = j.at("target_string");
    kit->halide_version = j.at("halide_version");
    kit->seed = j.at("seed");
    kit->build_errors = j.at("build_errors").get<std::vector<std::string>>();
    for (const auto& c : j.at("cases")) {
      KitCase k;
      k.program = c.at("program");
      k.strategy = c.at("strategy");
      k.fusion = c.at("fusion");
      k.mutant = c.at("mutant");
      k.must_agree = c.at("must_agree");
      k.original = c.at("original");
      k.scheduled = c.at("scheduled");
      k.regions = c.at("regions").get<std::vector<std::vector<int>>>();
      k.origin = c.at("origin").get<std::vector<int>>();
      k.expected_offset = c.at("expected_offset");
      k.return_shapes = c.at("return_shapes").get<std::vector<std::vector<int64_t>>>();
      k.storage_sizes = c.at("storage_sizes").get<std::vector<int64_t>>();
      kit->cases.push_back(std::move(k));
    }
  } catch (const std::exception& e) {
    return std::string("kit.json: ") + e.what();
  }
  floats->resize(bytes.size() / sizeof(float));
  std::memcpy(floats->data(), bytes.data(), floats->size() * sizeof(float));
  return "";
}

}  // namespace af::lowering
