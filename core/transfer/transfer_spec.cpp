#include "core/transfer/transfer_spec.h"

#include "core/io/hash.h"

namespace strata {

json::Object TransferSpec::toJson() const
{
    json::Array src(sources.begin(), sources.end());
    const auto &o = options;
    json::Object opts{
        {"mode", int(o.mode)},
        {"recursive", o.recursive},
        {"existing", int(o.existing)},
        {"verify", o.verify},
        {"deleteExtra", o.deleteExtra},
        {"dryRun", o.dryRun},
        {"compareContent", o.compareContent},
        {"jobs", o.jobs},
        {"partsInFlight", o.partsInFlight},
        {"partSize", o.partSize},
        {"chunkSize", o.chunkSize},
        {"maxBytesInFlight", o.maxBytesInFlight},
        {"bandwidthLimit", o.bandwidthLimit},
        {"zstdLevel", o.zstdLevel},
        {"zstdThreads", o.zstdThreads},
        {"sync", o.sync},
    };
    if (o.preserveMode)
        opts.emplace("preserveMode", true);
    if (o.allowLocalRoot)
        opts.emplace("allowLocalRoot", true);
    if (o.destinationIgnoresCase)
        opts.emplace("destinationIgnoresCase", *o.destinationIgnoresCase);
    return {{"sources", std::move(src)}, {"destination", destination}, {"options", std::move(opts)}};
}

Result<TransferSpec> TransferSpec::fromJson(const json::Value &doc)
{
    TransferSpec spec;
    if (const auto sources = doc.find("sources"); sources != doc.end() && sources->is_array())
        for (const auto &v : *sources)
            if (v.is_string())
                spec.sources.push_back(v.get<std::string>());
    spec.destination = json::get<std::string>(doc, "destination", "");
    if (spec.sources.empty() || spec.destination.empty())
        return Error(ErrorKind::Corrupt, "the transfer journal names no source or no destination");
    static const json::Value kNone = json::Object{};
    const auto found = doc.find("options");
    const json::Value &o = found != doc.end() ? *found : kNone;
    auto &t = spec.options;
    auto num = [&](const char *key, auto fallback) {
        return decltype(fallback)(json::get<std::int64_t>(o, key, std::int64_t(fallback)));
    };
    auto flag = [&](const char *key) { return json::get<bool>(o, key, false); };
    t.mode = TransferMode(num("mode", int(t.mode)));
    t.recursive = flag("recursive");
    t.existing = ExistingPolicy(num("existing", int(t.existing)));
    t.verify = flag("verify");
    t.deleteExtra = flag("deleteExtra");
    t.dryRun = flag("dryRun");
    if (const auto ignoresCase = o.find("destinationIgnoresCase"); ignoresCase != o.end() && ignoresCase->is_boolean())
        t.destinationIgnoresCase = ignoresCase->get<bool>();
    t.compareContent = flag("compareContent");
    t.jobs = num("jobs", t.jobs);
    t.partsInFlight = num("partsInFlight", t.partsInFlight);
    t.partSize = num("partSize", t.partSize);
    t.chunkSize = num("chunkSize", t.chunkSize);
    t.maxBytesInFlight = num("maxBytesInFlight", t.maxBytesInFlight);
    t.bandwidthLimit = num("bandwidthLimit", t.bandwidthLimit);
    t.zstdLevel = num("zstdLevel", t.zstdLevel);
    t.zstdThreads = num("zstdThreads", t.zstdThreads);
    t.sync = flag("sync");
    t.preserveMode = flag("preserveMode");
    t.allowLocalRoot = flag("allowLocalRoot");
    if (t.partSize == 0 || t.chunkSize == 0 || t.maxBytesInFlight < t.chunkSize || t.partsInFlight < 0)
        return Error(ErrorKind::Corrupt, "the transfer journal has impossible sizes");
    return spec;
}

std::string TransferSpec::identity() const
{
    Sha256 hash;
    for (const auto &s : sources) {
        hash.add(s);
        hash.add("\n");
    }
    hash.add(destination);
    const char kind[] = {char('0' + int(options.mode)), char('0' + int(options.recursive)),
                         char('0' + int(options.deleteExtra))};
    hash.add({kind, 3});
    return toHex(hash.finish()).substr(0, 32);
}

} // namespace strata
