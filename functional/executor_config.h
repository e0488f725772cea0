#pragma once
// The [functional] section: the table for functional::ExecutorOptions
// (functional/grid.h), the knobs of the grid executor in functional mode.
#include "common/config.h"
#include "functional/grid.h"

namespace warpsim::functional {

const config::Table<ExecutorOptions>& executor_config_table();

}  // namespace warpsim::functional
