/* kforge.h — the candidate ABI. Every candidate kernel includes this header and defines kf_forward. */
#pragma once
#include <stdint.h>

typedef enum { KF_FLOAT32 = 0, KF_FLOAT16 = 1, KF_BFLOAT16 = 2, KF_FLOAT64 = 3,
               KF_INT64 = 4, KF_INT32 = 5, KF_BOOL = 6, KF_INT8 = 7, KF_UINT8 = 8 } kf_dtype;
typedef struct { void* data; int32_t dtype; int32_t ndim; int64_t shape[8]; } kf_tensor;
/* inputs: forward() arguments in order, then Model parameters and buffers in state_dict() order;
   outputs: forward() results in order, preallocated with the reference's dtype and shape, contents
   undefined on entry. shape/ndim are those of this call: where a problem's sizes depend on the seed they
   change from call to call, so read them every time. All tensors contiguous, row-major. data is a device
   pointer on the cuda backend and a host pointer on the host backend. stream is the cudaStream_t to launch on (NULL on host).
   Return 0 on success; any other value is reported as a runtime error. */
#ifdef __cplusplus
extern "C"
#endif
int kf_forward(const kf_tensor* inputs, int32_t num_inputs,
               kf_tensor* outputs, int32_t num_outputs, void* stream);
