// A tensor's data in a texture: the DeviceData behind every value a GPU-pixel node produces.
// request_download starts a read into a pixel-pack buffer fenced by a sync object;
// download_done polls the fence without waiting; wait_download waits, and the host copy is kept
// so every later reader shares the one transfer. The texture holds float32 values, or the
// integer words of an int32, uint32 or int64 tensor (texel_dtype.h); the tensor's dtype (any that
// texel_holds takes) is kept here, and the host copy is converted to it exactly.
#pragma once

#include <memory>
#include <mutex>
#include <optional>

#include "backends/gpu_pixel/runtime.h"
#include "backends/gpu_pixel/texture.h"
#include "core/tensor_impl.h"

namespace kiln::gpu_pixel {

class TextureData final : public DeviceData {
 public:
  // A texture for `elements` elements of `dtype`, in the format and word count that dtype takes.
  TextureData(std::shared_ptr<Runtime> runtime, int64_t elements,
              DataType dtype = DataType::Float32);
  ~TextureData() override;

  TextureTensor& texture() { return texture_; }
  const Runtime* runtime() const { return runtime_.get(); }
  DataType dtype() const { return dtype_; }

  void request_download(TensorImpl& tensor) override;
  bool download_done(const TensorImpl& tensor) const override;
  void wait_download(TensorImpl& tensor) override;
  // Copies from the transfer buffer straight into `out` (no host copy kept for it).
  void download_into(TensorImpl& tensor, std::span<std::byte> out) override;

 private:
  void request_locked();

  std::shared_ptr<Runtime> runtime_;
  DataType dtype_;
  int64_t elements_;  // the tensor's; the texture holds words_per_element(dtype_) per element
  TextureTensor texture_;
  mutable std::mutex mutex_;
  mutable std::optional<PendingDownload> pending_;
  std::shared_ptr<Storage> host_;
};

// Texture-to-host transfers started by this process so far (a statistic for tests).
uint64_t texture_downloads_started();

// The texture behind `t` when it lives in `runtime`, else nullptr.
TextureData* texture_data_of(const Tensor& t, const Runtime& runtime);

}  // namespace kiln::gpu_pixel
