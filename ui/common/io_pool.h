#pragma once

class QThreadPool;

namespace strata {

// The threads that run storage calls for the desktop app (listings, stat, rename,
// delete…). Separate from Qt's global pool, which has one thread per core: a few slow
// network calls must not hold up everything else.
QThreadPool *ioPool();

} // namespace strata
