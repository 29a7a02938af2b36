// Saving and loading a checkpoint (default 16 float32 tensors of 64 MiB = 1 GiB) against
// plain file I/O of the same bytes: write + fsync of a new file (save also writes a new
// file and fsyncs it, for its atomic rename) and read() into buffers allocated once (as
// load's tensors come from the caching allocator). The page cache is warm for both reads
// (each file was just written); each figure is the best of the runs.
// Use: ember_bench_serialize [dir=/tmp] [tensors=16] [MiB each=64] [runs=3]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void must(bool ok, const char* what) {
  if (!ok) {
    std::perror(what);
    std::exit(1);
  }
}

void plain_write(const std::string& path, const std::vector<ember::Tensor>& ts) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  must(fd >= 0, "open");
  for (const auto& t : ts) {
    const char* p = static_cast<const char*>(t.data_ptr());
    for (size_t n = t.nbytes(); n;) {
      ssize_t w = ::write(fd, p, n);
      must(w > 0, "write");
      p += w;
      n -= size_t(w);
    }
  }
  must(::fsync(fd) == 0 && ::close(fd) == 0, "fsync");
}

void plain_read(const std::string& path, std::vector<std::vector<char>>& bufs) {
  int fd = ::open(path.c_str(), O_RDONLY);
  must(fd >= 0, "open");
  for (auto& b : bufs) {
    for (size_t got = 0; got < b.size();) {
      ssize_t r = ::read(fd, b.data() + got, b.size() - got);
      must(r > 0, "read");
      got += size_t(r);
    }
  }
  ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp";
  const size_t count = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 16;
  const size_t mib = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 64;
  const int runs = argc > 4 ? std::atoi(argv[4]) : 5;
  const int64_t elems = int64_t(mib) << 18;  // float32
  std::map<std::string, ember::Tensor> named;
  std::vector<ember::Tensor> list;
  for (size_t i = 0; i < count; ++i) {
    list.push_back(ember::rand({elems}));
    named["layer" + std::to_string(i)] = list.back();
  }
  const std::string raw = dir + "/ember_bench_plain.bin", st = dir + "/ember_bench.safetensors";
  std::vector<std::vector<char>> bufs(count, std::vector<char>(size_t(elems) * 4, 1));
  double w_plain = 1e30, w_save = 1e30, r_plain = 1e30, r_load = 1e30, r_mmap = 1e30;
  for (int r = 0; r < runs; ++r) {
    // Both write a new file (the old one removed untimed), in alternating order.
    std::remove(raw.c_str());
    std::remove(st.c_str());
    double t0 = 0, t1 = 0, t2 = 0;
    if (r % 2 == 0) {
      t0 = now();
      plain_write(raw, list);
      t1 = now();
      ember::save(named, st);
      t2 = now();
    } else {
      double a = now();
      ember::save(named, st);
      double b = now();
      plain_write(raw, list);
      double c = now();
      t0 = 0, t1 = c - b, t2 = t1 + (b - a);
    }
    plain_read(raw, bufs);
    double t3 = now();
    auto loaded = ember::load(st);
    double t4 = now();
    auto mapped = ember::load(st, ember::LoadOptions().mmap(true));
    double t5 = now();
    w_plain = std::min(w_plain, t1 - t0);
    w_save = std::min(w_save, t2 - t1);
    r_plain = std::min(r_plain, t3 - t2);
    r_load = std::min(r_load, t4 - t3);
    r_mmap = std::min(r_mmap, t5 - t4);
    must(loaded.size() == count && ember::equal(loaded.at("layer0"), list[0]) && ember::equal(mapped.at("layer0"), list[0]),
         "round trip");
  }
  const double gib = double(count * mib) / 1024;
  std::printf("checkpoint: %zu float32 tensors x %zu MiB = %.2f GiB in %s (best of %d)\n", count, mib, gib, dir.c_str(), runs);
  std::printf("write: plain write+fsync %.3f s (%.2f GiB/s) | ember::save %.3f s (%.2f GiB/s) | ratio %.2fx\n", w_plain,
              gib / w_plain, w_save, gib / w_save, w_save / w_plain);
  std::printf("read:  plain read       %.3f s (%.2f GiB/s) | ember::load %.3f s (%.2f GiB/s) | ratio %.2fx\n", r_plain,
              gib / r_plain, r_load, gib / r_load, r_load / r_plain);
  std::printf("       ember::load(mmap) %.4f s (views of the mapping, no copy)\n", r_mmap);
  std::remove(raw.c_str());
  std::remove(st.c_str());
}
