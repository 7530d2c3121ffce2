// strip's list-mode subsets for the reconstruction layer.
#include "compute/strip/subsets.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::strip {

EventSubsets::EventSubsets(ListModeProjector& op, std::span<const Event> events, int subsets, std::size_t pixels,
                           std::vector<double> acceptance,
                           const std::function<std::unique_ptr<ListModeProjector>()>& more,
                           const pet::ForwardTerms& terms)
    : op_(op), subsets_(std::max(subsets, 1)), pixels_(pixels), acceptance_(std::move(acceptance)) {
  if (!terms.additive.empty()) {
    if (terms.additive.size() != events.size() ||
        (!terms.multiplicative.empty() && terms.multiplicative.size() != events.size()))
      throw Error(str_cat("strip: correction terms for ", terms.additive.size(), " events, the data hold ", events.size()));
    terms_.resize(subsets_.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
      pet::ForwardTerms& t = terms_[i % subsets_.size()];
      t.additive.push_back(terms.additive[i]);
      if (!terms.multiplicative.empty()) t.multiplicative.push_back(terms.multiplicative[i]);
    }
  }
  if (subsets_.size() == 1) {
    active_ = 0;  // the caller's set_events
    return;
  }
  for (std::size_t i = 0; i < events.size(); ++i) subsets_[i % subsets_.size()].push_back(events[i]);
  if (!more) return;
  // Every subset's events in a projector of their own, uploaded once.
  for (std::size_t k = 0; k < subsets_.size(); ++k) {
    ListModeProjector* p = &op_;
    if (k > 0) {
      own_.push_back(more());
      if (!own_.back()) throw Error("strip: no projector for a further subset");
      p = own_.back().get();
    }
    p->set_events(subsets_[k]);
    resident_.push_back(p);
    std::vector<Event>().swap(subsets_[k]);  // the backend holds them now
  }
  active_ = 0;
  holder_ = 0;
}

void EventSubsets::select(int k) {
  if (!resident_.empty()) {
    if (k == holder_) return;
    // The image moves to the subset's projector (on the device where the backend can, else
    // through the host: ρ' has few pixels); scale_ still holds, as the images are copied as they are.
    if (!at(k).take_image(at(holder_))) at(k).set_image(at(holder_).image());
    holder_ = k;
    return;
  }
  if (k == active_) return;
  op_.set_events(subsets_[k]);
  active_ = k;
}

void EventSubsets::set_image(std::span<const double> x) {
  at(holder_).set_image(x);
  scale_ = 1;
}

std::vector<double> EventSubsets::image() {
  std::vector<double> x = at(holder_).image();
  if (scale_ != 1)
    for (double& v : x) v *= scale_;
  return x;
}

std::vector<double> EventSubsets::sensitivity(int) {
  if (acceptance_.empty()) return std::vector<double>(pixels_, 1.0 / double(subsets_.size()));
  std::vector<double> s = acceptance_;
  for (double& v : s) v /= double(subsets_.size());
  return s;
}

void EventSubsets::em_step(int k) {
  if (!terms_.empty()) {  // x ← x·B_k / (c/S), B_k with the additive counts (back_ratio)
    const std::vector<double> b = back_ratio(k);
    std::vector<double> x = image();
    const double S = double(subsets_.size());
    for (std::size_t j = 0; j < x.size(); ++j) {
      const double c = acceptance_.empty() ? 1.0 : acceptance_[j];
      x[j] = c > 0 ? x[j] * b[j] * S / c : 0.0;
    }
    at(holder_).set_image(x);
    scale_ = 1;
    return;
  }
  select(k);
  ListModeProjector& op = at(k);
  op.iterate();  // [Bialas2015] eq. (5) over the subset's events
  scale_ = double(subsets_.size());
  if (acceptance_.empty()) return;
  std::vector<double> x = op.image();  // x·B_k; the step is x·B_k / (c/S)
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = acceptance_[j] > 0 ? x[j] * scale_ / acceptance_[j] : 0.0;
  op.set_image(x);
  scale_ = 1;
}

std::vector<double> EventSubsets::back_ratio(int k) {
  const std::vector<double> x = image();
  if (resident_.empty()) select(k);
  ListModeProjector& op = at(k);
  std::vector<double> v = op.forward(x);
  if (!terms_.empty()) {
    pet::list_mode_ratio(v, terms_[std::size_t(k)], 0);  // m / (m·F + c)
  } else {
    for (double& t : v) t = t > 0 ? 1.0 / t : 0.0;
  }
  return op.back(v);
}

}  // namespace tomo::strip
