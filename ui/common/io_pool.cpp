#include "ui/common/io_pool.h"

#include <QThreadPool>

namespace strata {

QThreadPool *ioPool()
{
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool; // lives as long as the process: tasks may still run at exit
        p->setMaxThreadCount(16);
        p->setExpiryTimeout(30000);
        return p;
    }();
    return pool;
}

} // namespace strata
