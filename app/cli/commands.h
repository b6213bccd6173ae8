#pragma once

class QCommandLineParser;

namespace strata::cli {

class Context;

int commandLs(Context &context, const QCommandLineParser &parser);
int commandStat(Context &context, const QCommandLineParser &parser);
int commandExtents(Context &context, const QCommandLineParser &parser);
int commandWalk(Context &context, const QCommandLineParser &parser);
int commandDu(Context &context, const QCommandLineParser &parser);
int commandBench(Context &context, const QCommandLineParser &parser);
int commandBenchstat(Context &context, const QCommandLineParser &parser);
int commandCat(Context &context, const QCommandLineParser &parser);
int commandCp(Context &context, const QCommandLineParser &parser);
int commandMv(Context &context, const QCommandLineParser &parser);
int commandSync(Context &context, const QCommandLineParser &parser);
int commandRm(Context &context, const QCommandLineParser &parser);
int commandMkdir(Context &context, const QCommandLineParser &parser);

} // namespace strata::cli
