import mongoose from 'mongoose';

const itemSchema = new mongoose.Schema(
  {
    name: {
      type: String,
      required: [true, 'name is required'],
      trim: true,
      minlength: [1, 'name must not be empty'],
      maxlength: [100, 'name must be at most 100 characters'],
      unique: true, // a unique index: a second item with the same name is a 409
    },
    description: {
      type: String,
      trim: true,
      maxlength: [1000, 'description must be at most 1000 characters'],
      default: '',
    },
    quantity: {
      type: Number,
      min: [0, 'quantity must be 0 or more'],
      max: [1_000_000, 'quantity must be at most 1000000'],
      validate: { validator: Number.isInteger, message: 'quantity must be an integer' },
      default: 0,
    },
    // A client-chosen id for the POST that created the item. Not unique on purpose: a replayed
    // POST would show up as a second item with the same id, which is what the drills count (here
    // the unique name answers such a replay with a 409 instead). Indexed for the count by prefix.
    requestId: {
      type: String,
      maxlength: [64, 'requestId must be at most 64 characters'],
      match: [/^[A-Za-z0-9._:-]+$/, 'requestId may hold only letters, digits and . _ : -'],
      index: true,
    },
  },
  {
    timestamps: true,
    versionKey: false,
    // Unknown fields in a body are dropped instead of stored.
    strict: true,
    toJSON: {
      transform(_doc, /** @type {Record<string, unknown>} */ ret) {
        ret.id = String(ret._id);
        delete ret._id;
        return ret;
      },
    },
  },
);

const define = () => mongoose.model('Item', itemSchema);
/** @type {ReturnType<typeof define>} */
export const Item = mongoose.models.Item ?? define();
