#pragma once

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
int commandBench(Context &context, const ArgParser &parser);
int commandBenchstat(Context &context, const ArgParser &parser);
int commandCat(Context &context, const ArgParser &parser);
int commandCp(Context &context, const ArgParser &parser);
int commandMv(Context &context, const ArgParser &parser);
int commandSync(Context &context, const ArgParser &parser);
int commandRm(Context &context, const ArgParser &parser);
int commandMkdir(Context &context, const ArgParser &parser);

} // namespace strata::cli
