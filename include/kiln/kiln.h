// kiln — an ONNX inference engine. Include this header for the whole public API.
//
//   kiln::Model model = kiln::load_model("model.onnx");
//   kiln::Worker worker(model, kiln::Backend::Cpu);
//   worker.schedule({{"input", kiln::Tensor::from_data<float>({1, 4}, {1, 2, 3, 4})}});
//   kiln::Tensor out = worker.peek_output().readback_and_clone();
#pragma once

#include "kiln/device.h"
#include "kiln/dtype.h"
#include "kiln/error.h"
#include "kiln/log.h"
#include "kiln/model.h"
#include "kiln/profile.h"
#include "kiln/shape.h"
#include "kiln/tensor.h"
#include "kiln/value_dump.h"
#include "kiln/version.h"
#include "kiln/worker.h"
