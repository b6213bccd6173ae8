#pragma once

// What the files of DirectoryModel share about the work it sends off the GUI thread (not a
// public header).

#include <QThreadPool>

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace strata::directory_model_work {

// Frees what a big folder's work leaves over on a worker thread: a large block freed on
// the GUI thread can make the allocator tidy its free lists there for tens of milliseconds.
// A task's result is moved out of the object it shares with its future (freeElsewhere(
// std::move(*result))): the future lets its copy go on the GUI thread, after the
// continuation, and would free what the result still held there.
template <typename T>
inline void freeElsewhere(T &&leftover)
{
    QThreadPool::globalInstance()->start(
        [held = std::make_shared<std::decay_t<T>>(std::forward<T>(leftover))]() mutable { held.reset(); });
}

// Below this many rows a merge or a sort costs little: done at once on the GUI thread.
constexpr std::size_t kSmallFolder = 20000;

// A merge that puts new rows in more places than this is an append and a layout change.
constexpr std::size_t kMostInsertions = 8;

} // namespace strata::directory_model_work
