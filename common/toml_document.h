#pragma once
// Reads a TOML document into JSON for inputs that are not configuration
// schemas (benchmarks/suites.toml): tables become objects, arrays arrays,
// strings/integers/floats/booleans the same JSON values, dates and times
// their TOML text. Every table also gets a "$line" member with the line it
// starts on, so that whoever validates the document can point at the spot.
#include <nlohmann/json.hpp>

#include <optional>

#include "common/diagnostics.h"
#include "common/source_file.h"

namespace warpsim {

// nullopt, with a located "invalid TOML" error in `diags`, if `file` is not
// valid TOML.
std::optional<nlohmann::json> parse_toml_document(const SourceFile& file, DiagnosticEngine& diags);

}  // namespace warpsim
