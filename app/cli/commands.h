#pragma once

#include "core/io/json.h"
#include "core/storage/operator.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata {
struct BenchOptions;
struct BenchRun;
} // namespace strata

namespace strata::cli {

class Context;
class ArgParser;

int commandLs(Context &context, const ArgParser &parser);
int commandStat(Context &context, const ArgParser &parser);
int commandExtents(Context &context, const ArgParser &parser);
int commandWalk(Context &context, const ArgParser &parser);
int commandDu(Context &context, const ArgParser &parser);
int commandFind(Context &context, const ArgParser &parser);
int commandDiff(Context &context, const ArgParser &parser);
int commandTag(Context &context, const ArgParser &parser);
int commandPresign(Context &context, const ArgParser &parser);
json::Value detailsJson(const ObjectDetails &details);
int commandBench(Context &context, const ArgParser &parser);
// The benchmark options given to `bench` (what an agent of a run on many hosts is given
// too); the usage message when one is wrong.
std::optional<std::string> parseBenchOptions(const ArgParser &parser, BenchOptions &options);
// A run's line and a result file's header in Go's benchmark format.
// A timeline CSV (--timeline) made at `path`, its header written; null (errno says why)
// when it cannot be.
using TimelineFile = std::unique_ptr<std::FILE, int (*)(std::FILE *)>;
TimelineFile openTimelineFile(const std::string &path);
std::string benchGoLine(const BenchRun &run);
std::string benchGoHeader(const std::string &target, const std::string &label);
// Keeps each target's Go text in the benchmark history the window reads (a warning when
// its folder is not safe to write).
void keepBenchHistory(Context &context, const std::string &label,
                      const std::vector<std::pair<std::string, std::string>> &targetsAndTexts);
// `bench --agent` (bench_agent.cpp) and `bench --hosts` (bench_hosts.cpp).
int runBenchAgent(Context &context, const ArgParser &parser);
int runBenchOnHosts(Context &context, const ArgParser &parser);
int commandBenchstat(Context &context, const ArgParser &parser);
int commandCat(Context &context, const ArgParser &parser);
int commandCp(Context &context, const ArgParser &parser);
int commandMv(Context &context, const ArgParser &parser);
int commandSync(Context &context, const ArgParser &parser);
int commandRm(Context &context, const ArgParser &parser);
int commandMkdir(Context &context, const ArgParser &parser);

} // namespace strata::cli
