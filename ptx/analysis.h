#pragma once
// PTX analyses: control-flow graph, immediate post-dominators / reconvergence
// points, register def-use, per-kernel resources.
#include "ptx/cfg.h"
#include "ptx/def_use.h"
#include "ptx/post_dominators.h"
#include "ptx/resources.h"
