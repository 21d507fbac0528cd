// See include/aort.h. Every OrtApi call's status is checked here; a failed call's message is copied
// out and the status released.
#include "include/aort.h"
#include <onnxruntime/onnxruntime_c_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct aort_session {
    OrtSession *session;
    char *input_name;
    char *output_name;
};

static pthread_mutex_t aort_lock = PTHREAD_MUTEX_INITIALIZER;
static const OrtApi *aort_api;      // set once, under aort_lock
static OrtEnv *aort_env;            // one environment for the process, as ONNX Runtime requires
static char aort_library[4096];     // the library file opened

static void aort_say(char *error, size_t capacity, const char *prefix, const char *message) {
    if (capacity == 0) return;
    snprintf(error, capacity, "%s%s%s", prefix, message && *message ? ": " : "", message ? message : "");
}

/// 1 and nothing else when `status` is NULL (success); else 0, its message in `error`, released.
static int aort_ok(OrtStatus *status, char *error, size_t capacity, const char *what) {
    if (status == NULL) return 1;
    aort_say(error, capacity, what, aort_api->GetErrorMessage(status));
    aort_api->ReleaseStatus(status);
    return 0;
}

/// Opens the library and creates the environment once; 1 when both are there.
static int aort_start(const char *library_path, char *error, size_t capacity) {
    pthread_mutex_lock(&aort_lock);
    int ready = 0;
    if (aort_api != NULL) {
        ready = strcmp(aort_library, library_path) == 0;
        if (!ready) aort_say(error, capacity, "ONNX Runtime is already open from another file", aort_library);
        pthread_mutex_unlock(&aort_lock);
        return ready;
    }
    void *handle = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        aort_say(error, capacity, "cannot open ONNX Runtime", dlerror());
        pthread_mutex_unlock(&aort_lock);
        return 0;
    }
    typedef const OrtApiBase *(*base_function)(void);
    base_function base = (base_function)dlsym(handle, "OrtGetApiBase");
    const OrtApi *api = base ? base()->GetApi(ORT_API_VERSION) : NULL;
    if (api == NULL) {
        aort_say(error, capacity, "the ONNX Runtime library does not offer the C API version this build needs", library_path);
        dlclose(handle);
        pthread_mutex_unlock(&aort_lock);
        return 0;
    }
    aort_api = api;
    OrtEnv *env = NULL;
    // Only fatal messages: ONNX Runtime's warnings (e.g. about unused initializers) are not the user's.
    if (aort_ok(api->CreateEnv(ORT_LOGGING_LEVEL_FATAL, "analyze", &env), error, capacity, "cannot start ONNX Runtime")) {
        aort_env = env;
        snprintf(aort_library, sizeof aort_library, "%s", library_path);
        ready = 1;
    } else {
        aort_api = NULL;  // the library stays open (never closed: its code may be referenced by statics)
    }
    pthread_mutex_unlock(&aort_lock);
    return ready;
}

static char *aort_copy(const char *text) {
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    if (copy) memcpy(copy, text, n);
    return copy;
}

/// The name of input (or output) 0, copied with malloc.
static char *aort_io_name(OrtSession *session, int output, char *error, size_t capacity) {
    OrtAllocator *allocator = NULL;
    if (!aort_ok(aort_api->GetAllocatorWithDefaultOptions(&allocator), error, capacity, "no allocator")) return NULL;
    char *name = NULL;
    OrtStatus *status = output ? aort_api->SessionGetOutputName(session, 0, allocator, &name)
                               : aort_api->SessionGetInputName(session, 0, allocator, &name);
    if (!aort_ok(status, error, capacity, output ? "the model has no output" : "the model has no input")) return NULL;
    char *copy = aort_copy(name);
    aort_api->AllocatorFree(allocator, name);
    return copy;
}

/// A session from the file at `model_path`, or from `bytes` (its contents, possibly extended) when not NULL; its
/// output is `output_name` when not NULL, else output 0.
static aort_session *aort_session_open(const char *library_path, const char *model_path, const unsigned char *bytes, size_t length,
                                       const char *output_name, int threads, char *error, size_t capacity) {
    if (!aort_start(library_path, error, capacity)) return NULL;
    const OrtApi *api = aort_api;
    OrtSessionOptions *options = NULL;
    if (!aort_ok(api->CreateSessionOptions(&options), error, capacity, "cannot create session options")) return NULL;
    int configured = aort_ok(api->SetIntraOpNumThreads(options, threads > 0 ? threads : 1), error, capacity, "threads")
        && aort_ok(api->SetInterOpNumThreads(options, 1), error, capacity, "threads")
        && aort_ok(api->SetSessionExecutionMode(options, ORT_SEQUENTIAL), error, capacity, "execution mode")
        && aort_ok(api->SetSessionGraphOptimizationLevel(options, ORT_ENABLE_ALL), error, capacity, "optimisation level")
        && aort_ok(api->DisableCpuMemArena(options), error, capacity, "memory arena")
        && aort_ok(api->AddSessionConfigEntry(options, "session.intra_op.allow_spinning", "0"), error, capacity, "spinning");
    OrtSession *session = NULL;
    if (configured) {
        char prefix[4200];
        snprintf(prefix, sizeof prefix, "ONNX Runtime cannot load %s", model_path);
        OrtStatus *status = bytes ? api->CreateSessionFromArray(aort_env, bytes, length, options, &session)
                                  : api->CreateSession(aort_env, model_path, options, &session);
        configured = aort_ok(status, error, capacity, prefix);
    }
    api->ReleaseSessionOptions(options);
    if (!configured) return NULL;
    aort_session *result = calloc(1, sizeof *result);
    if (result == NULL) {
        api->ReleaseSession(session);
        aort_say(error, capacity, "out of memory", NULL);
        return NULL;
    }
    result->session = session;
    result->input_name = aort_io_name(session, 0, error, capacity);
    if (result->input_name) {
        result->output_name = output_name ? aort_copy(output_name) : aort_io_name(session, 1, error, capacity);
        if (output_name && result->output_name == NULL) aort_say(error, capacity, "out of memory", NULL);
    }
    if (result->input_name == NULL || result->output_name == NULL) {
        aort_session_free(result);
        return NULL;
    }
    return result;
}

aort_session *aort_session_create(const char *library_path, const char *model_path, int threads, char *error, size_t capacity) {
    return aort_session_open(library_path, model_path, NULL, 0, NULL, threads, error, capacity);
}

/// Appends `value` as a protobuf varint; returns the bytes written (at most 10).
static size_t aort_varint(unsigned char *out, size_t value) {
    size_t n = 0;
    do {
        unsigned char byte = value & 0x7F;
        value >>= 7;
        out[n++] = byte | (value ? 0x80 : 0);
    } while (value);
    return n;
}

/// Reads a varint at `*at` in [p, p + n); 1 and `*at` past it, or 0 when it runs off the end.
static int aort_read_varint(const unsigned char *p, size_t n, size_t *at, uint64_t *value) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && *at < n; shift += 7) {
        unsigned char byte = p[(*at)++];
        v |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) {
            *value = v;
            return 1;
        }
    }
    return 0;
}

/// The `index`-th (from 0) field number `field` of wire type `wire` (0: varint, 2: length-delimited) in
/// the message [p, p + n): 1, with its value's offset and byte length; 0 when there is none or the
/// message is malformed.
static int aort_find_field(const unsigned char *p, size_t n, uint64_t field, int wire, int index, size_t *offset,
                           size_t *length) {
    size_t at = 0;
    while (at < n) {
        uint64_t key = 0, value = 0;
        if (!aort_read_varint(p, n, &at, &key)) return 0;
        const size_t start = at;
        switch (key & 7) {
        case 0:
            if (!aort_read_varint(p, n, &at, &value)) return 0;
            break;
        case 1:
            if (n - at < 8) return 0;
            at += 8;
            break;
        case 5:
            if (n - at < 4) return 0;
            at += 4;
            break;
        case 2:
            if (!aort_read_varint(p, n, &at, &value) || value > n - at) return 0;
            break;
        default:
            return 0;
        }
        const int match = (key >> 3) == field && (int)(key & 7) == wire;
        if (match && index-- == 0) {
            *offset = wire == 2 ? at : start;
            *length = wire == 2 ? (size_t)value : at - start;
            return 1;
        }
        if ((key & 7) == 2) at += (size_t)value;
    }
    return 0;
}

/// Sets the model's first input's dimensions 2 and 3 (an NCHW image's height and width) to `height` and
/// `width` in the serialized model [p, p + n), in place: ModelProto.graph (7) → GraphProto.input (11)
/// → ValueInfoProto.type (2) → TypeProto.tensor_type (1) → shape (2) → dim (1) → dim_value (1). Only
/// a value of the same encoded length fits in place (224 → 320 does); 1 on success, else 0.
static int aort_set_input_size(unsigned char *p, size_t n, int height, int width) {
    static const struct { uint64_t field; int index; } path[] = {{7, 0}, {11, 0}, {2, 0}, {1, 0}, {2, 0}};
    size_t base = 0, length = n, offset = 0;
    for (size_t i = 0; i < sizeof path / sizeof path[0]; i++) {
        if (!aort_find_field(p + base, length, path[i].field, 2, path[i].index, &offset, &length)) return 0;
        base += offset;
    }
    const int sizes[2] = {height, width};
    for (int d = 0; d < 2; d++) {
        size_t dim = 0, dim_length = 0, value = 0, value_length = 0;
        if (!aort_find_field(p + base, length, 1, 2, 2 + d, &dim, &dim_length)) return 0;
        if (!aort_find_field(p + base + dim, dim_length, 1, 0, 0, &value, &value_length)) return 0;
        unsigned char encoded[10];
        if (sizes[d] <= 0 || aort_varint(encoded, (size_t)sizes[d]) != value_length) return 0;
        memcpy(p + base + dim + value, encoded, value_length);
    }
    return 1;
}

aort_session *aort_session_create_inner_output(const char *library_path, const char *model_path, const char *output_name,
                                               int input_height, int input_width, int threads, char *error, size_t capacity) {
    size_t name_length = strlen(output_name);
    if (name_length == 0 || name_length > 1024) {
        aort_say(error, capacity, "the output name is empty or too long", NULL);
        return NULL;
    }
    FILE *file = fopen(model_path, "rb");
    if (file == NULL) {
        aort_say(error, capacity, "cannot open the model", model_path);
        return NULL;
    }
    long size = -1;
    if (fseek(file, 0, SEEK_END) == 0) size = ftell(file);
    if (size <= 0 || size > (1L << 31) || fseek(file, 0, SEEK_SET) != 0) {
        fclose(file);
        aort_say(error, capacity, "cannot read the model", model_path);
        return NULL;
    }
    // ValueInfoProto {name = 1, type = 2 {tensor_type = 1 {elem_type = 1: FLOAT}}} in GraphProto.output (12), in
    // ModelProto.graph (7): 0x3A len [0x62 len [0x0A len name, 0x12 04 0A 02 08 01]].
    unsigned char value[1100], graph[1120], tail[1140];
    size_t v = 0, g = 0, t = 0;
    value[v++] = 0x0A;
    v += aort_varint(value + v, name_length);
    memcpy(value + v, output_name, name_length);
    v += name_length;
    static const unsigned char float_tensor[] = {0x12, 0x04, 0x0A, 0x02, 0x08, 0x01};
    memcpy(value + v, float_tensor, sizeof float_tensor);
    v += sizeof float_tensor;
    graph[g++] = 0x62;
    g += aort_varint(graph + g, v);
    memcpy(graph + g, value, v);
    g += v;
    tail[t++] = 0x3A;
    t += aort_varint(tail + t, g);
    memcpy(tail + t, graph, g);
    t += g;
    unsigned char *bytes = malloc((size_t)size + t);
    if (bytes == NULL) {
        fclose(file);
        aort_say(error, capacity, "out of memory", NULL);
        return NULL;
    }
    size_t read = fread(bytes, 1, (size_t)size, file);
    fclose(file);
    if (read != (size_t)size) {
        free(bytes);
        aort_say(error, capacity, "cannot read the model", model_path);
        return NULL;
    }
    if ((input_height > 0 || input_width > 0) && !aort_set_input_size(bytes, (size_t)size, input_height, input_width)) {
        free(bytes);
        aort_say(error, capacity, "cannot set the model's input size", model_path);
        return NULL;
    }
    memcpy(bytes + size, tail, t);
    aort_session *session = aort_session_open(library_path, model_path, bytes, (size_t)size + t, output_name, threads, error, capacity);
    free(bytes);
    return session;
}

int aort_session_run(aort_session *s, const float *input, const int64_t *shape, size_t rank, aort_output *output,
                     char *error, size_t capacity) {
    const OrtApi *api = aort_api;
    memset(output, 0, sizeof *output);
    size_t count = 1;
    for (size_t i = 0; i < rank; i++) {
        if (shape[i] <= 0) { aort_say(error, capacity, "an input dimension is not positive", NULL); return -1; }
        count *= (size_t)shape[i];
    }
    OrtMemoryInfo *memory = NULL;
    if (!aort_ok(api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &memory), error, capacity, "memory info")) return -1;
    OrtValue *in = NULL, *out = NULL;
    // ONNX Runtime reads the caller's buffer in place; it does not write inputs.
    int ok = aort_ok(api->CreateTensorWithDataAsOrtValue(memory, (void *)input, count * sizeof(float), shape, rank,
                                                         ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &in),
                     error, capacity, "cannot wrap the input");
    api->ReleaseMemoryInfo(memory);
    if (!ok) return -1;
    const char *input_names[1] = {s->input_name};
    const char *output_names[1] = {s->output_name};
    const OrtValue *inputs[1] = {in};
    ok = aort_ok(api->Run(s->session, NULL, input_names, inputs, 1, output_names, 1, &out), error, capacity, "the network failed");
    api->ReleaseValue(in);
    if (!ok) return -1;
    OrtTensorTypeAndShapeInfo *info = NULL;
    ok = aort_ok(api->GetTensorTypeAndShape(out, &info), error, capacity, "the output is not a tensor");
    size_t dims = 0, elements = 0;
    ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    if (ok) {
        ok = aort_ok(api->GetDimensionsCount(info, &dims), error, capacity, "output shape")
            && aort_ok(api->GetTensorElementType(info, &type), error, capacity, "output type")
            && aort_ok(api->GetTensorShapeElementCount(info, &elements), error, capacity, "output size");
        if (ok && (dims > 8 || type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)) {
            aort_say(error, capacity, "the output is not a float tensor of at most 8 dimensions", NULL);
            ok = 0;
        }
        if (ok) ok = aort_ok(api->GetDimensions(info, output->shape, dims), error, capacity, "output shape");
        api->ReleaseTensorTypeAndShapeInfo(info);
    }
    float *data = NULL;
    if (ok) ok = aort_ok(api->GetTensorMutableData(out, (void **)&data), error, capacity, "output data");
    if (ok) {
        output->data = malloc(elements ? elements * sizeof(float) : 1);
        if (output->data == NULL) {
            aort_say(error, capacity, "out of memory", NULL);
            ok = 0;
        } else {
            if (elements) memcpy(output->data, data, elements * sizeof(float));
            output->rank = dims;
            output->count = elements;
        }
    }
    api->ReleaseValue(out);
    return ok ? 0 : -1;
}

char *aort_session_metadata(aort_session *s, const char *key) {
    const OrtApi *api = aort_api;
    OrtModelMetadata *meta = NULL;
    OrtStatus *failed = api->SessionGetModelMetadata(s->session, &meta);
    if (failed) {
        api->ReleaseStatus(failed);
        return NULL;
    }
    OrtAllocator *allocator = NULL;
    char *value = NULL, *copy = NULL;
    OrtStatus *status = api->GetAllocatorWithDefaultOptions(&allocator);
    if (status == NULL) status = api->ModelMetadataLookupCustomMetadataMap(meta, allocator, key, &value);
    if (status == NULL && value != NULL) {
        copy = aort_copy(value);
        api->AllocatorFree(allocator, value);
    }
    if (status) api->ReleaseStatus(status);
    api->ReleaseModelMetadata(meta);
    return copy;
}

size_t aort_session_input_shape(aort_session *s, int64_t shape[8]) {
    const OrtApi *api = aort_api;
    OrtTypeInfo *type = NULL;
    size_t dims = 0;
    OrtStatus *status = api->SessionGetInputTypeInfo(s->session, 0, &type);
    if (status) { api->ReleaseStatus(status); return 0; }
    const OrtTensorTypeAndShapeInfo *info = NULL;
    status = api->CastTypeInfoToTensorInfo(type, &info);
    if (status == NULL && info) status = api->GetDimensionsCount(info, &dims);
    if (status == NULL && info && dims <= 8) status = api->GetDimensions(info, shape, dims);
    else if (dims > 8) dims = 0;
    if (status) { api->ReleaseStatus(status); dims = 0; }
    api->ReleaseTypeInfo(type);
    return dims;
}

void aort_session_free(aort_session *s) {
    if (s == NULL) return;
    if (s->session) aort_api->ReleaseSession(s->session);
    free(s->input_name);
    free(s->output_name);
    free(s);
}

void aort_free(void *pointer) { free(pointer); }
