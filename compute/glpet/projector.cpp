// Default implementations of the glpet Projector and host-vector helpers.
#include "compute/glpet/projector.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::glpet {

namespace {
void check_size(std::size_t want, std::size_t got, const char* what) {
  if (want != got) throw Error(str_cat("glpet: ", what, " has ", got, " values, expected ", want));
}
}  // namespace

void HostBuffer::upload(std::span<const float> host) {
  check_size(data.size(), host.size(), "upload");
  for (std::size_t i = 0; i < host.size(); ++i) data[i] = host[i];
}

void HostBuffer::download(std::span<float> host) const {
  check_size(data.size(), host.size(), "download");
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = float(data[i]);
}

void BackendBuffer::zero() { upload(std::vector<float>(size(), 0.0f)); }

std::vector<float> download(const BackendBuffer& b) {
  std::vector<float> out(b.size());
  b.download(out);
  return out;
}

void Projector::sensitivity(BackendBuffer& sens) {
  auto ones = make_lors();
  ones->upload(std::vector<float>(ones->size(), 1.0f));
  back(*ones, sens);
}

void Projector::mlem_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& sens) {
  std::vector<float> hx = download(x), hb = download(b), hs = download(sens);
  for (std::size_t v = 0; v < hx.size(); ++v) hx[v] = hs[v] > 0 ? float(double(hx[v]) * hb[v] / hs[v]) : 0.0f;
  x.upload(hx);
}

std::vector<float> forward_host(Projector& op, std::span<const float> x) {
  auto bx = op.make_image();
  auto by = op.make_lors();
  bx->upload(x);
  op.forward(*bx, *by);
  return download(*by);
}

std::vector<float> back_host(Projector& op, std::span<const float> z) {
  auto bz = op.make_lors();
  auto bb = op.make_image();
  bz->upload(z);
  op.back(*bz, *bb);
  return download(*bb);
}

std::vector<float> sensitivity_host(Projector& op) {
  auto s = op.make_image();
  op.sensitivity(*s);
  return download(*s);
}

}  // namespace tomo::glpet
